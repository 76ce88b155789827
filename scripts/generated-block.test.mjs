import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { withBlock, writeOrCheck } from './generated-block.mjs';

const MARKERS = { begin: '<!-- x:begin -->', end: '<!-- x:end -->' };
const PAGE = '# Title\n\nProse.\n\n<!-- x:begin -->\nold\n<!-- x:end -->\n\nMore prose.\n';

describe('withBlock', () => {
  it('replaces only the text between the markers, keeping the prose around them', () => {
    expect(withBlock(PAGE, MARKERS, 'new\nrows')).toBe(
      '# Title\n\nProse.\n\n<!-- x:begin -->\nnew\nrows\n<!-- x:end -->\n\nMore prose.\n',
    );
  });

  it('gives the page back unchanged when the block is up to date', () => {
    expect(withBlock(PAGE, MARKERS, 'old')).toBe(PAGE);
  });

  it('refuses a page without both markers, or with the end before the begin', () => {
    expect(() => withBlock('# Title\n', MARKERS, 'x')).toThrow(/lacks the markers <!-- x:begin -->/);
    expect(() => withBlock('<!-- x:begin -->\n', MARKERS, 'x')).toThrow(/lacks the markers/);
    expect(() => withBlock('<!-- x:end -->\n<!-- x:begin -->\n', MARKERS, 'x')).toThrow(/lacks the markers/);
  });
});

describe('writeOrCheck', () => {
  const exitCode = process.exitCode;
  afterEach(() => {
    process.exitCode = exitCode;
    vi.restoreAllMocks();
  });

  function page(text) {
    const path = join(mkdtempSync(join(tmpdir(), 'generated-block-')), 'page.md');
    writeFileSync(path, text);
    return path;
  }

  it('rewrites the block with --write', () => {
    const path = page(PAGE);
    writeOrCheck(path, MARKERS, 'new', ['node', 'scripts/x-page.mjs', '--write']);
    expect(readFileSync(path, 'utf8')).toBe(PAGE.replace('old', 'new'));
  });

  it('without --write, leaves the page alone and fails only when it is out of date', () => {
    const said = vi.spyOn(console, 'error').mockImplementation(() => {});
    const path = page(PAGE);
    writeOrCheck(path, MARKERS, 'old', ['node', 'scripts/x-page.mjs']);
    expect(said).not.toHaveBeenCalled();
    expect(process.exitCode).toBe(exitCode);
    writeOrCheck(path, MARKERS, 'new', ['node', 'scripts/x-page.mjs']);
    expect(process.exitCode).toBe(1);
    expect(said).toHaveBeenCalledWith(
      expect.stringMatching(/page\.md is out of date: run node .*x-page\.mjs --write$/),
    );
    expect(readFileSync(path, 'utf8')).toBe(PAGE);
  });
});
