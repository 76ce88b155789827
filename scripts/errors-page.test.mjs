import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BEGIN, END, PAGE, errorTable, withTable } from './errors-page.mjs';

describe('docs/reference/errors.md', () => {
  it("lists every error kind of gateway-core's catalogue as it is (node scripts/errors-page.mjs --write)", async () => {
    const page = readFileSync(PAGE, 'utf8');
    expect(page).toBe(withTable(page, await errorTable()));
  });

  it('would be caught out of date: a changed row differs from the written table', async () => {
    const table = await errorTable();
    const stale = `# Errors\n${BEGIN}\n${table.replace('| 401 |', '| 400 |')}\n${END}\n`;
    expect(withTable(stale, table)).not.toBe(stale);
    expect(table).toContain('| `budget-exhausted` | Daily token budget exhausted | 429 | -32029 |');
  });
});
