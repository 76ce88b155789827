import fc from 'fast-check';
import { countTokens as countO200k } from 'gpt-tokenizer/encoding/o200k_base';
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

describe('counting long texts in slices', () => {
  const whole = (text: string) => countO200k(text, { disallowedSpecial: new Set<string>() });

  it('counts natural text exactly: slices are cut where the pre-tokenizer cuts anyway', () => {
    const word = fc.stringMatching(/^[A-Za-z0-9'.,:{}"[\]-]{1,12}$/);
    const gap = fc.constantFrom(' ', '  ', '\n', ' \n', '\t', ', ', '": "');
    const text = fc
      .array(fc.tuple(word, gap), { minLength: 50, maxLength: 400 })
      .map((parts) => parts.map(([w, g]) => w + g).join(''));
    fc.assert(
      fc.property(text, (sample) => {
        expect(countTokens(sample)).toBe(whole(sample));
      }),
      { numRuns: 200 },
    );
  });

  it('cuts a run with no space in it, adding at most a token per cut', () => {
    const run = '{},'.repeat(3_000);
    const cuts = Math.ceil(run.length / 256);
    expect(countTokens(run)).toBeGreaterThanOrEqual(whole(run));
    expect(countTokens(run)).toBeLessThanOrEqual(whole(run) + cuts);
    expect(tokensWithin(run, countTokens(run))).toBe(countTokens(run));
    expect(tokensWithin(run, 100)).toBeUndefined();
  });

  it('never splits a surrogate pair', () => {
    const run = '😀'.repeat(1_000);
    expect(countTokens(run)).toBeGreaterThan(0);
    expect(countTokens(run)).toBeLessThanOrEqual(whole(run) + Math.ceil(run.length / 256));
  });
});

describe('counting an answer seen before', () => {
  const whole = (text: string) => countO200k(text, { disallowedSpecial: new Set<string>() });

  it('charges the same count the second time, from tokensWithin and countTokens alike', () => {
    const answer = JSON.stringify({ id: 7, notes: 'a record asked for twice '.repeat(40), tags: ['x', 'y'] });
    const first = countTokens(answer);
    expect(first).toBe(whole(answer));
    expect(countTokens(answer)).toBe(first);
    expect(tokensWithin(answer, first)).toBe(first);
    // Known, and over a smaller limit: refused without counting, like a fresh text.
    expect(tokensWithin(answer, first - 1)).toBeUndefined();
    expect(tokensWithin(answer, 10)).toBeUndefined();
  });

  it('keeps what tokensWithin counted to the end, and never a count cut short at the limit', () => {
    const answer = 'word, '.repeat(400);
    const exact = whole(answer);
    expect(tokensWithin(answer, 50)).toBeUndefined();
    expect(countTokens(answer)).toBe(exact);
    const other = 'term; '.repeat(400);
    expect(tokensWithin(other, Buffer.byteLength(other) - 1)).toBe(whole(other));
    expect(countTokens(other)).toBe(whole(other));
  });

  it('is exact for any text, however often it is counted', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 0, maxLength: 600 }), (text) => {
        const exact = countTokens(text);
        expect(countTokens(text)).toBe(exact);
        expect(tokensWithin(text, exact)).toBe(exact);
      }),
      { numRuns: 300 },
    );
  });
});
