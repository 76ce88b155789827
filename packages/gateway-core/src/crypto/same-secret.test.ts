import { describe, expect, it } from 'vitest';
import { sameSecret } from './same-secret.js';

describe('sameSecret', () => {
  const secret = 'a3f1'.repeat(16);

  it('matches the same text only', () => {
    expect(sameSecret(secret, secret)).toBe(true);
    expect(sameSecret(`${secret.slice(0, -1)}0`, secret)).toBe(false);
    expect(sameSecret(secret.toUpperCase(), secret)).toBe(false);
  });

  it('compares texts of any length without throwing', () => {
    expect(sameSecret(secret.slice(0, 10), secret)).toBe(false);
    expect(sameSecret(secret + secret, secret)).toBe(false);
    expect(sameSecret(`${secret}\0`, secret)).toBe(false);
  });

  it('treats the empty text as a text like any other', () => {
    expect(sameSecret('', secret)).toBe(false);
    expect(sameSecret(secret, '')).toBe(false);
    expect(sameSecret('', '')).toBe(true);
  });

  it('compares non-ASCII text exactly', () => {
    expect(sameSecret('ключ-鍵-🔑', 'ключ-鍵-🔑')).toBe(true);
    expect(sameSecret('ключ', 'ключь')).toBe(false);
    // Precomposed é against e and a combining accent: the same on screen, different secrets.
    expect(sameSecret('caf\u00e9', 'cafe\u0301')).toBe(false);
    // Lone surrogates: UTF-8 would encode both as U+FFFD and call them equal.
    expect(sameSecret('\ud800', '\udfff')).toBe(false);
  });
});
