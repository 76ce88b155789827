import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { loadO200k, o200kRanks } from './o200k.js';

describe('o200k_base built from the rank file', () => {
  it('has the ranks of the package’s own table, entry for entry (strings as strings, other bytes as bytes)', () => {
    const own = (
      createRequire(import.meta.url)('gpt-tokenizer/bpeRanks/o200k_base') as { default: (string | number[])[] }
    ).default;
    const ours = o200kRanks();
    expect(ours.length).toBe(own.length);
    const differ: number[] = [];
    for (let rank = 0; rank < own.length; rank++) {
      const a = own[rank];
      const b = ours[rank];
      const same =
        rank in own === rank in ours &&
        (typeof a === 'string'
          ? a === b
          : Array.isArray(b) && b.length === a!.length && b.every((byte, i) => byte === a![i]));
      if (!same) differ.push(rank);
    }
    expect(differ).toEqual([]);
    // Both kinds occur, a leading byte-order mark among the bytes: the comparison above saw each.
    expect(ours.some((token) => typeof token === 'string')).toBe(true);
    expect(
      ours.some((token) => Array.isArray(token) && token[0] === 0xef && token[1] === 0xbb && token[2] === 0xbf),
    ).toBe(true);
  });

  it('counts as the package’s o200k_base module does', () => {
    const own = createRequire(import.meta.url)(
      'gpt-tokenizer/encoding/o200k_base',
    ) as typeof import('gpt-tokenizer/encoding/o200k_base');
    const ours = loadO200k();
    const plain = { disallowedSpecial: new Set<string>() };
    for (const text of [
      'hello world',
      '\uFEFFusing namespace std;\n\n',
      'Ünïcödé 日本語 🎉 <|endoftext|>',
      '\u00ff\u00fe bytes',
      JSON.stringify({ a: [1, 2.5, 'x'], b: null }),
    ]) {
      expect(ours.countTokens(text, plain)).toBe(own.countTokens(text, plain));
      expect(ours.encode(text, plain)).toEqual(own.encode(text, plain));
    }
  });
});
