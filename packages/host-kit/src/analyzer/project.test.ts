import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { analyzeProject } from './index.js';

// No `strict` and no `strictNullChecks`: the default comes from the TypeScript major.
const tsconfig = fileURLToPath(new URL('../../test-fixtures/strict-default/tsconfig.json', import.meta.url));

describe('strictNullChecks default (strictNullChecks ?? strict ?? TypeScript >= 6)', () => {
  it('is off before TypeScript 6: a nullable query parameter stays required', () => {
    const { manifest, diagnostics } = analyzeProject({ tsconfig, typescriptVersion: '5.9.3' });
    expect(diagnostics).toEqual([]);
    expect(manifest.strictNullChecks).toBe(false);
    expect(manifest.tools[0]?.inputSchema.required).toEqual(['text', 'cursor']);
  }, 30_000);

  it('is on from TypeScript 6: the nullable parameter becomes optional', () => {
    const { manifest } = analyzeProject({ tsconfig, typescriptVersion: '6.0.2' });
    expect(manifest.strictNullChecks).toBe(true);
    expect(manifest.tools[0]?.inputSchema.required).toEqual(['text']);
  }, 30_000);
});
