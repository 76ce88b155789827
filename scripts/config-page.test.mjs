import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { BEGIN, END, PAGE, configTables, withTables } from './config-page.mjs';

describe('docs/reference/configuration.md', () => {
  let tables;
  // Loading the declarations transpiles the gateway's config sections and gateway-core's sources: seconds on a loaded
  // machine, once for both tests, so the load gets a bound of its own instead of eating a test's 5 s.
  beforeAll(async () => {
    tables = await configTables();
  }, 60_000);

  it("lists every declared key of the gateway's configuration as it is (node scripts/config-page.mjs --write)", () => {
    const page = readFileSync(PAGE, 'utf8');
    expect(page).toBe(withTables(page, tables));
  });

  it('would be caught out of date: a changed default differs from the written tables', () => {
    const stale = `# Configuration\n${BEGIN}\n${tables.replace('| `30` | An MCP session', '| `60` | An MCP session')}\n${END}\n`;
    expect(withTables(stale, tables)).not.toBe(stale);
    expect(tables).toContain(
      '| `Gw:Mcp:SessionIdleMinutes` | `Gw__Mcp__SessionIdleMinutes` | whole number ≥ 1 | `30` | An MCP session',
    );
    expect(tables).toContain(
      "| `Gw:Downstream:Retries` | `Gw__Downstream__Retries` | number | `2` (gateway-core's default) |",
    );
    expect(tables).toContain(
      '| `Gw:Downstreams:<name>:BaseUrl` | `Gw__Downstreams__<name>__BaseUrl` | http(s) URL | — (required) |',
    );
  });
});
