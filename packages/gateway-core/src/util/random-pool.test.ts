import { describe, expect, it } from 'vitest';
import { RandomPool } from './random-pool.js';

describe('RandomPool', () => {
  it('hands out each byte once: no two ids repeat across refills', () => {
    const pool = new RandomPool(64);
    const ids = new Set(Array.from({ length: 1_000 }, () => pool.base64url(16)));
    expect(ids.size).toBe(1_000);
  });

  it('gives base64url text of the length asked for', () => {
    const pool = new RandomPool(64);
    for (let i = 0; i < 20; i++) expect(pool.base64url(16)).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(Buffer.from(pool.base64url(48), 'base64url')).toHaveLength(48);
  });

  it('looks random: about half the bits of many ids are set', () => {
    const pool = new RandomPool();
    let ones = 0;
    const bytes = Buffer.from(Array.from({ length: 500 }, () => pool.base64url(16)).join(''), 'base64url');
    for (const byte of bytes) for (let bit = 0; bit < 8; bit++) ones += (byte >> bit) & 1;
    expect(ones / (bytes.length * 8)).toBeGreaterThan(0.45);
    expect(ones / (bytes.length * 8)).toBeLessThan(0.55);
  });

  it('refuses more bytes than it holds', () => {
    expect(() => new RandomPool(8).base64url(9)).toThrow(RangeError);
  });
});
