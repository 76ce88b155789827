import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countTokens, tokensWithin } from './count.js';

describe('countTokens', () => {
  it('counts o200k_base tokens', () => {
    expect(countTokens('')).toBe(0);
    expect(countTokens('hello world')).toBe(2);
  });

  it('counts special-token strings from a downstream as plain text instead of throwing', () => {
    expect(countTokens('a <|endoftext|> b')).toBeGreaterThan(3);
  });

  it('never counts more tokens than UTF-8 bytes (the bound the fast path relies on)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 64 }), (text) => {
        expect(countTokens(text)).toBeLessThanOrEqual(Buffer.byteLength(text, 'utf8'));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('tokensWithin', () => {
  it('returns the count when the text fits and undefined when it does not', () => {
    const text = 'word '.repeat(100);
    const tokens = countTokens(text);
    expect(tokensWithin(text, tokens)).toBe(tokens);
    expect(tokensWithin(text, tokens - 1)).toBeUndefined();
  });
});
