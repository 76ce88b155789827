import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cycles, groupCycles, importGraph, moduleCycles, sourceFiles, upwardImports } from './layers.mjs';

// Two layers, `low` under `high`: low/leans-up.ts imports high/roof.ts (up a
// layer) and high/roof.ts imports it back (a cycle); the rest import down.
const fixture = fileURLToPath(new URL('./test-fixtures/layers', import.meta.url));
const LAYERS = ['low', 'high'];
const folderOf = (path) => path.slice(0, path.indexOf('/'));

describe('the layers checker', () => {
  it('reads the sources, tests aside, and their relative imports and re-exports, .js read as .ts or .tsx', () => {
    expect(sourceFiles(fixture)).toEqual([
      'high/index.ts',
      'high/roof.ts',
      'high/view.tsx',
      'low/ground.ts',
      'low/leans-up.ts',
    ]);
    expect(importGraph(fixture, folderOf)).toEqual([
      { from: 'high', to: 'high', file: 'high/index.ts', target: 'high/view.tsx' },
      { from: 'high', to: 'low', file: 'high/roof.ts', target: 'low/ground.ts' },
      { from: 'high', to: 'low', file: 'high/roof.ts', target: 'low/leans-up.ts' },
      { from: 'low', to: 'high', file: 'low/leans-up.ts', target: 'high/roof.ts' },
    ]);
  });

  it('names the upward import, and only it', () => {
    expect(upwardImports(importGraph(fixture, folderOf), LAYERS)).toEqual(['low/leans-up.ts -> high/roof.ts']);
  });

  it('finds the cycle, between the modules and between their folders', () => {
    const imports = importGraph(fixture, folderOf);
    expect(moduleCycles(imports)).toEqual([['high/roof.ts', 'low/leans-up.ts']]);
    expect(groupCycles(imports, folderOf)).toEqual([['high', 'low']]);
  });

  it('finds no cycle where there is none, and each group that has one', () => {
    const chain = [
      ['a', 'b'],
      ['b', 'c'],
    ];
    expect(cycles(chain)).toEqual([]);
    expect(
      cycles([
        ['a', 'b'],
        ['b', 'a'],
        ['c', 'd'],
        ['d', 'e'],
        ['e', 'c'],
        ['e', 'a'],
      ]),
    ).toEqual([
      ['a', 'b'],
      ['c', 'd', 'e'],
    ]);
  });
});
