import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { longLines, longLinesIn, productFiles } from './line-length.mjs';

const repository = fileURLToPath(new URL('..', import.meta.url));

describe("the repository's product code", () => {
  it('has no line over 120 characters (packages/*/src and apps/*/src, tests aside)', () => {
    expect(longLines(repository)).toEqual([]);
  });

  it('is what the check reads: sources under src, no test files', () => {
    const files = productFiles(repository);
    expect(files).toContain('packages/gateway-core/src/index.ts');
    expect(files.some((path) => path.endsWith('.tsx'))).toBe(true);
    expect(files.filter((path) => /\.test\.tsx?$/.test(path) || !/^(packages|apps)\/[^/]+\/src\//.test(path))).toEqual(
      [],
    );
  });
});

describe('the line-length check', () => {
  it('names each line over the limit, counted in characters, not bytes', () => {
    const text = ['short', 'x'.repeat(120), 'y'.repeat(121), 'é'.repeat(120), ''].join('\n');
    expect(longLinesIn('a.ts', text)).toEqual(['a.ts:3: 121 characters']);
    expect(longLinesIn('a.ts', text, 4)).toEqual([
      'a.ts:1: 5 characters',
      'a.ts:2: 120 characters',
      'a.ts:3: 121 characters',
      'a.ts:4: 120 characters',
    ]);
  });
});
