import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// The API reports in etc/ are checked against the build (`pnpm api:check`), so the
// names they declare are the names each entry exports.
const EXPORT =
  /^export (?:declare )?(?:abstract )?(?:class|function|const|interface|type|namespace|enum|let|var) (\w+)/gm;

function exportedNames(report: string): Set<string> {
  const text = readFileSync(new URL(`../etc/${report}`, import.meta.url), 'utf8');
  return new Set([...text.matchAll(EXPORT)].map((match) => match[1]!));
}

describe('the public API of @tollgate/gateway-core', () => {
  const main = exportedNames('gateway-core.api.md');

  // Issue 31: a main entry a reader can take in. Grow a group (`errors`, `store`)
  // or the app's internal entry before growing this number.
  it('exports at most 120 names from the main entry', () => {
    expect(main.size).toBeGreaterThan(0);
    expect(main.size).toBeLessThanOrEqual(120);
  });

  it('offers the errors and store groups as namespaces of the main entry and as entries of their own', () => {
    expect(main).toContain('errors');
    expect(main).toContain('store');
    expect(exportedNames('gateway-core.errors.api.md')).toContain('ConfigError');
    expect(exportedNames('gateway-core.store.api.md')).toContain('createStore');
  });

  it('keeps the internal entry apart from the public one', () => {
    const internal = exportedNames('gateway-core.internal.api.md');
    expect([...internal].filter((name) => main.has(name))).toEqual([]);
  });
});
