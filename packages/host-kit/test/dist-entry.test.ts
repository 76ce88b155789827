import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const dist = fileURLToPath(new URL('../dist/', import.meta.url));
const IMPORT = /(?:^|[;\s])(?:import|export)\s*(?:[\w*{}\s,$]+from\s*)?['"]([^'"]+)['"]/g;

/** Every bare module specifier reachable from `entry` through its relative (chunk) imports. */
function packagesReachableFrom(entry: string): Set<string> {
  const packages = new Set<string>();
  const pending = [entry];
  const seen = new Set<string>();
  while (pending.length > 0) {
    const file = pending.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      if (specifier?.startsWith('.')) pending.push(resolve(dirname(file), specifier));
      else if (specifier) packages.add(specifier);
    }
  }
  return packages;
}

describe('built entries', () => {
  it('the runtime entry dist/index.js reaches neither ts-morph nor typescript', () => {
    expect(existsSync(join(dist, 'index.js')), 'build @tollgate/host-kit first').toBe(true);
    const packages = [...packagesReachableFrom(join(dist, 'index.js'))];
    expect(packages.filter((name) => /^(ts-morph|typescript|esbuild)(\/|$)/.test(name))).toEqual([]);
    expect(packages.some((name) => name.startsWith('hono'))).toBe(true);
  });

  it('the build-time entries do reach ts-morph (so the check above can fail)', () => {
    expect(packagesReachableFrom(join(dist, 'cli.js'))).toContain('ts-morph');
    expect(packagesReachableFrom(join(dist, 'tsup.js'))).toContain('ts-morph');
  });
});
