import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
// The checker both layers tests share (reading imports, order, cycles): a repository check, not a dependency.
import { type Import, importGraph, sourceFiles, upwardImports } from '../../../scripts/layers.mjs';

/**
 * The folders of gateway-core from the bottom up: a module may import its
 * own folder and the folders below it, never one above. The files at the
 * root (errors, the error catalogue, time, tracing) sit just above the
 * helpers they use. `testing/` and the entries (`index.ts`, `internal.ts`) are above everything.
 */
const LAYERS = [
  'util',
  'crypto',
  'abort',
  '(root)',
  'protocol',
  'embedding',
  'store',
  'tools',
  'tokens',
  'privacy',
  'assertion',
  'forward',
  'answer',
  'resilience',
  'auth',
  'audit',
  'cache',
  'agents',
  'usage',
  // Tool sources and search over them (OpenAPI import, search mode): tools, forward and embedding below, the MCP service above.
  'catalog',
  'pipeline',
  'mcp',
  // The public groups of the main entry (errors, store), each an entry too.
  'api',
  'testing',
  '(index)',
];

const SRC = dirname(fileURLToPath(import.meta.url));

function layerOf(path: string): string {
  // The entry points: the public API and the app's internal one.
  if (path === 'index.ts' || path === 'internal.ts') return '(index)';
  return path.includes('/') ? path.slice(0, path.indexOf('/')) : '(root)';
}

const imports = (): Import[] => importGraph(SRC, layerOf);

describe('gateway-core layers', () => {
  it('knows every folder', () => {
    const folders = new Set(sourceFiles(SRC).map(layerOf));
    for (const folder of folders) expect(LAYERS, folder).toContain(folder);
  });

  it('has no import pointing up a layer', () => {
    expect(upwardImports(imports(), LAYERS)).toEqual([]);
  });

  it('has no adapter borrowing from another adapter', () => {
    const across = imports()
      .filter(({ file, target }) => /^store\/(memory|redis)\//.test(file) && /^store\/(memory|redis)\//.test(target))
      .filter(({ file, target }) => file.split('/')[1] !== target.split('/')[1]);
    expect(across).toEqual([]);
  });

  it('reads the imports it checks (the check can fail)', () => {
    const found = imports();
    expect(found.length).toBeGreaterThan(100);
    expect(found).toContainEqual(expect.objectContaining({ file: 'mcp/mcp-service.ts', to: 'pipeline' }));
  });
});
