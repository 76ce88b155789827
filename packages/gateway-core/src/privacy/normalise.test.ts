import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fold } from './normalise.js';

describe('fold', () => {
  it('leaves ASCII, and text that folding does not change, alone (no map is built)', () => {
    expect(fold('4111 1111 1111 1111')).toBeUndefined();
    expect(fold('café, naïve, 東京, Ωmega')).toBeUndefined();
  });

  it('applies NFKC, folds spaces and dashes, and removes zero-width characters', () => {
    expect(
      fold('\uFF14\uFF11\u00A01\u20091\u202F1\u2013-\u2014\u2212\u2010\u2011x\u200By\u200C\u200D\uFEFF\u2060z\u00AD')
        ?.text,
    ).toBe('41 1 1 1------xyz');
  });

  it('maps each folded character back to the original span it came from', () => {
    const text = 'a\u200B\uFF14\u2013b\uD835\uDFCF';
    const folded = fold(text)!;
    expect(folded.text).toBe('a4-b1');
    const indices = [0, 1, 2, 3, 4];
    expect(indices.map((i) => folded.start(i))).toEqual([0, 2, 3, 4, 5]);
    expect(indices.map((i) => folded.end(i))).toEqual([1, 3, 4, 5, 7]);
  });

  it('maps every folded character to an ordered original span that folds to it, for any text', () => {
    const foldOne = (text: string) => fold(text)?.text ?? text;
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const folded = fold(text);
        if (folded === undefined) return;
        for (let i = 0; i < folded.text.length; i++) {
          const start = folded.start(i);
          const end = folded.end(i);
          expect(start).toBeLessThan(end);
          expect(end).toBeLessThanOrEqual(text.length);
          if (i > 0) expect(start).toBeGreaterThanOrEqual(folded.start(i - 1));
          expect(foldOne(text.slice(start, end))).toContain(folded.text[i]);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('maps a long text with few changes without a per-character map', () => {
    const text = `${'Пожалуйста, '.repeat(10_000)}4111\u00A01111`;
    const folded = fold(text)!;
    expect(folded.text.endsWith('4111 1111')).toBe(true);
    const i = folded.text.length - 4;
    expect([folded.start(i), folded.end(i)]).toEqual([text.length - 4, text.length - 3]);
    expect(folded.start(5)).toBe(5);
  });
});
