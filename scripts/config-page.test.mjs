import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BEGIN, END, PAGE, configTables, withTables } from './config-page.mjs';

describe('docs/reference/configuration.md', () => {
  it("lists every declared key of the gateway's configuration as it is (node scripts/config-page.mjs --write)", async () => {
    const page = readFileSync(PAGE, 'utf8');
    expect(page).toBe(withTables(page, await configTables()));
  });

  it('would be caught out of date: a changed default differs from the written tables', async () => {
    const tables = await configTables();
    const stale = `# Configuration\n${BEGIN}\n${tables.replace('| `30` | An MCP session', '| `60` | An MCP session')}\n${END}\n`;
    expect(withTables(stale, tables)).not.toBe(stale);
    expect(tables).toContain(
      '| `Gw:Mcp:SessionIdleMinutes` | `Gw__Mcp__SessionIdleMinutes` | whole number ≥ 1 | `30` | An MCP session',
    );
    expect(tables).toContain(
      "| `Gw:Downstream:Retries` | `Gw__Downstream__Retries` | number | `2` (gateway-core's default) |",
    );
  });
});
