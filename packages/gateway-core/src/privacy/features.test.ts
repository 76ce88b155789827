import { describe, expect, it } from 'vitest';
import { AT, COLON, DIGIT, DOT, ENCODED, EQUALS, featuresOf, NON_ASCII, PLUS, shapeOf } from './features.js';

describe('featuresOf', () => {
  it.each([
    ['', 0],
    ['plain words', 0],
    ['a1', DIGIT],
    ['a@b.c', AT | DOT],
    ['+44: x', PLUS | DIGIT | COLON],
    ['café', NON_ASCII],
    ['salt & pepper', ENCODED],
    ['a%40b', ENCODED | DIGIT],
    ['a=b', EQUALS],
    ['50% off', DIGIT],
    ['YWxpY2VAZXhhbXBsZQ', ENCODED | DIGIT],
    ['d41d8cd98f00b204e9800998ecf8427e', DIGIT],
    ['abcdefghijklmno', 0],
  ])('%j has %i', (text, features) => {
    expect(featuresOf(text)).toBe(features);
  });
});

describe('shapeOf', () => {
  it.each([
    ['', 0],
    ['no digits', 0],
    ['id 42', 2],
    ['2025-01-01T10:00:00Z', 8],
    ['+44 (20) 7946-0958 on 2024-01-15', 12],
    ['10.0.0.1:8080', 5],
    ['4111 1111 1111 1111', 16],
    ['4111_1111', 4],
    ['4111\u00A01111 (not folded here)', 4],
    ['\uFF11 full-width is no ASCII digit', 0],
    ['1'.repeat(1000), 255],
  ])('%j holds at most %i digits in one group (counted up to 255) beside its features', (text, digits) => {
    expect((shapeOf(text) >>> 8) & 0xff).toBe(digits);
    expect(shapeOf(text) & 0xff).toBe(featuresOf(text));
  });
});

describe('shapeOf, longest base64-alphabet run', () => {
  it.each([
    ['', 0],
    ['a few short words.', 5],
    ['xoxb-1234567890 in a log', 15],
    ['SG.abc', 3],
    ['a+b/c_d-e=f', 9],
    ['é'.repeat(3) + 'abc' + '\u00A0' + 'abcd', 4],
    ['A'.repeat(300), 255],
  ])('%j has a run of %i (counted up to 255)', (text, run) => {
    expect(shapeOf(text) >>> 16).toBe(run);
  });
});

describe('shapeOf, the short way for lower-case letters and spaces', () => {
  /** The general path alone, as written before the short way. */
  function generalShape(text: string): number {
    const base64 = (code: number) =>
      code < 128 && /[A-Za-z0-9+/_-]/.test(String.fromCharCode(code))
        ? /[0-9A-Fa-f-]/.test(String.fromCharCode(code))
          ? 1
          : 2
        : 0;
    let features = featuresOf('');
    let groupDigits = 0;
    let mostDigits = 0;
    let run = 0;
    let longestRun = 0;
    let notHex = false;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      const char = text.charAt(i);
      if (code >= 128) features |= NON_ASCII;
      else if (/\d/.test(char)) features |= DIGIT;
      else
        features |=
          ({ '@': AT, ':': COLON, '.': DOT, '+': PLUS, '=': EQUALS, '&': ENCODED } as Record<string, number>)[char] ??
          0;
      if (code < 128 && /\d/.test(char)) groupDigits++;
      else if (code >= 128 || !' .-()'.includes(char)) {
        mostDigits = Math.max(mostDigits, groupDigits);
        groupDigits = 0;
      }
      const kind = base64(code);
      if (kind === 0) {
        run = 0;
        notHex = false;
        if (char === '%' && /^[0-9A-Fa-f]{2}/.test(text.slice(i + 1, i + 3))) features |= ENCODED;
      } else {
        run++;
        longestRun = Math.max(longestRun, run);
        if (kind === 2) notHex = true;
        if (run >= 16 && notHex) features |= ENCODED;
      }
    }
    return features | (Math.min(Math.max(mostDigits, groupDigits), 255) << 8) | (Math.min(longestRun, 255) << 16);
  }

  it('gives what the character-by-character rules give, on random texts', () => {
    // Mostly lower-case letters and spaces, as text is: runs long enough to look encoded, and every other kind of character.
    const alphabet = 'abcdefghijklmnopqrstuvwxyz   AFGZ09-_+/=%&@:.()é\u00A0{';
    let state = 7;
    // mulberry32: the same texts on every run
    const next = () => {
      state = (state + 0x6d2b79f5) | 0;
      let t = Math.imul(state ^ (state >>> 15), 1 | state);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    for (let n = 0; n < 20_000; n++) {
      let text = '';
      for (let length = Math.floor(next() * 40); length > 0; length--)
        text += alphabet[Math.floor(next() * alphabet.length)];
      expect(shapeOf(text), JSON.stringify(text)).toBe(generalShape(text));
    }
  });
});
