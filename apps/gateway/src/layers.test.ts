import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The folders of the gateway app from the bottom up: a module may import its
 * own folder and the layers below it, never one above (as gateway-core's
 * layers test does for the package). The files at the root are two layers:
 * the few small modules the folders share, low, and the composition roots
 * (the process entry, the primary of a cluster, the wiring and the app's
 * route table), above everything.
 */
const LAYERS = [
  'config',
  'registry',
  '(root)',
  // Multi-process machinery the metrics read (which worker takes connections); its primary is a composition root.
  'cluster',
  'http',
  'observability',
  'routes',
  // POST/GET/DELETE /mcp on the app and on the Node objects, SSE, the Node request and response: beside `routes`, not in it.
  'mcp-transport',
  'dashboard',
  '(composition)',
];

/** Root files that compose the rest; every other root file is `(root)`. */
const COMPOSITION = ['main.ts', 'supervisor.ts', 'compose.ts', 'gateway-app.ts'];

/** Layers next to each other in the order above that must not import each other either way. */
const SIBLINGS: Array<[string, string]> = [['routes', 'mcp-transport']];

const SRC = dirname(fileURLToPath(import.meta.url));
const IMPORT = /^(?:import|export)\s[^;]*?from\s+'(\.{1,2}\/[^']+)'/gm;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

function layerOf(file: string): string {
  const path = relative(SRC, file);
  if (path.includes('/')) return path.slice(0, path.indexOf('/'));
  return COMPOSITION.includes(path) ? '(composition)' : '(root)';
}

/** The file an import names: `./x.js` is `./x.ts` (or `.tsx`) in the sources. */
function sourceOf(target: string): string {
  const stem = target.replace(/\.js$/, '');
  return [`${stem}.ts`, `${stem}.tsx`].find((candidate) => existsSync(candidate)) ?? target;
}

function imports(): Array<{ from: string; to: string; file: string; target: string }> {
  return sourceFiles(SRC).flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(IMPORT)].map((match) => {
      const target = sourceOf(resolve(dirname(file), match[1]!));
      return { from: layerOf(file), to: layerOf(target), file: relative(SRC, file), target: relative(SRC, target) };
    }),
  );
}

/** The groups of nodes that reach each other (Tarjan's strongly connected components), those of more than one node. */
function cycles(edges: Array<[string, string]>): string[][] {
  const next = new Map<string, string[]>();
  for (const [from, to] of edges) {
    next.set(from, [...(next.get(from) ?? []), to]);
    if (!next.has(to)) next.set(to, []);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    for (const to of next.get(node)!) {
      if (!index.has(to)) visit(to);
      if (stack.includes(to)) low.set(node, Math.min(low.get(node)!, low.get(to)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const group = stack.splice(stack.indexOf(node));
    if (group.length > 1) found.push(group.sort());
  };
  for (const node of next.keys()) if (!index.has(node)) visit(node);
  return found;
}

describe('gateway app layers', () => {
  it('knows every folder', () => {
    const folders = new Set(sourceFiles(SRC).map(layerOf));
    for (const folder of folders) expect(LAYERS, folder).toContain(folder);
  });

  it('has no import pointing up a layer', () => {
    const upward = imports()
      .filter(({ from, to }) => LAYERS.indexOf(to) > LAYERS.indexOf(from))
      .map(({ file, target }) => `${file} -> ${target}`);
    expect(upward).toEqual([]);
  });

  it('keeps siblings apart', () => {
    const across = imports()
      .filter(({ from, to }) => SIBLINGS.some(([a, b]) => (from === a && to === b) || (from === b && to === a)))
      .map(({ file, target }) => `${file} -> ${target}`);
    expect(across).toEqual([]);
  });

  it('has no import cycle between layers or between modules', () => {
    const found = imports();
    expect(cycles(found.filter(({ from, to }) => from !== to).map(({ from, to }) => [from, to]))).toEqual([]);
    expect(cycles(found.map(({ file, target }) => [file, target]))).toEqual([]);
  });

  it('reads the imports it checks (the checks can fail)', () => {
    const found = imports();
    expect(found.length).toBeGreaterThan(100);
    expect(found).toContainEqual(expect.objectContaining({ file: 'mcp-transport/mcp-fast-path.ts', to: 'http' }));
    expect(found).toContainEqual(expect.objectContaining({ file: 'dashboard/routes/overview.tsx', to: '(root)' }));
    expect(
      cycles([
        ['a', 'b'],
        ['b', 'c'],
        ['c', 'a'],
        ['c', 'd'],
      ]),
    ).toEqual([['a', 'b', 'c']]);
    expect(
      cycles([
        ['a', 'b'],
        ['b', 'c'],
      ]),
    ).toEqual([]);
  });
});
