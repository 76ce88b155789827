import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { countTokens, loadTokenizer } from './count.js';

/** Whether any of gpt-tokenizer (its encoder, which the o200k tables are built into) is in this process's module cache yet. */
function tablesLoaded(): boolean {
  return Object.keys(createRequire(import.meta.url).cache).some((path) => /gpt-tokenizer[\\/]/.test(path));
}

describe('the tokenizer loads on first use', () => {
  it('is not loaded by importing the counting module, and is by the first count or loadTokenizer', () => {
    expect(tablesLoaded()).toBe(false);
    loadTokenizer();
    expect(tablesLoaded()).toBe(true);
    expect(countTokens('hello world')).toBe(2);
  });
});
