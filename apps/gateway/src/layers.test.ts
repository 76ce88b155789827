import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
// The checker both layers tests share (reading imports, order, cycles): a repository check, not a dependency.
import {
  cycles,
  groupCycles,
  type Import,
  importGraph,
  moduleCycles,
  sourceFiles,
  upwardImports,
} from '../../../scripts/layers.mjs';

/**
 * The folders of the gateway app from the bottom up: a module may import its
 * own folder and the layers below it, never one above (as gateway-core's
 * layers test does for the package). The files at the root are two layers:
 * the downstream forwarders the wiring builds, low, and the composition roots
 * (the process entry, the primary of a cluster, the wiring and the app's
 * route table), above everything. What the folders share lives in a folder
 * (`health`, `usage`), so no folder imports the root: counted as one
 * folder, the root is in no cycle either.
 */
const LAYERS = [
  'config',
  'registry',
  // Readiness (contract 2.6): read by /health, the dashboard and the cluster's primary.
  'health',
  // Usage reports from the counters: read by the management API and the dashboard.
  'usage',
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

function layerOf(path: string): string {
  if (path.includes('/')) return path.slice(0, path.indexOf('/'));
  return COMPOSITION.includes(path) ? '(composition)' : '(root)';
}

/** The folder a file is in, the root's files all one folder: no root file a folder imports may import that folder. */
function folderOf(path: string): string {
  return path.includes('/') ? path.slice(0, path.indexOf('/')) : '(root)';
}

const imports = (): Import[] => importGraph(SRC, layerOf);

describe('gateway app layers', () => {
  it('knows every folder', () => {
    const folders = new Set(sourceFiles(SRC).map(layerOf));
    for (const folder of folders) expect(LAYERS, folder).toContain(folder);
  });

  it('has no import pointing up a layer', () => {
    expect(upwardImports(imports(), LAYERS)).toEqual([]);
  });

  it('keeps siblings apart', () => {
    const across = imports()
      .filter(({ from, to }) => SIBLINGS.some(([a, b]) => (from === a && to === b) || (from === b && to === a)))
      .map(({ file, target }) => `${file} -> ${target}`);
    expect(across).toEqual([]);
  });

  it('has no import cycle between layers, between folders (the root one folder) or between modules', () => {
    const found = imports();
    expect(groupCycles(found, layerOf)).toEqual([]);
    expect(groupCycles(found, folderOf)).toEqual([]);
    expect(moduleCycles(found)).toEqual([]);
  });

  it('reads the imports it checks (the checks can fail)', () => {
    const found = imports();
    expect(found.length).toBeGreaterThan(100);
    expect(found).toContainEqual(expect.objectContaining({ file: 'mcp-transport/mcp-fast-path.ts', to: 'http' }));
    expect(found).toContainEqual(expect.objectContaining({ file: 'dashboard/routes/overview.tsx', to: 'health' }));
    expect(found).toContainEqual(expect.objectContaining({ file: 'compose.ts', to: '(root)' }));
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
