import { describe, expect, it } from 'vitest';
import { apiKeyMatches } from './api-key.js';

describe('apiKeyMatches', () => {
  const key = 'a3f1'.repeat(16);

  it('accepts the configured key only', () => {
    expect(apiKeyMatches(key, key)).toBe(true);
    expect(apiKeyMatches(`${key.slice(0, -1)}0`, key)).toBe(false);
  });

  it('compares keys of any length without throwing', () => {
    expect(apiKeyMatches('', key)).toBe(false);
    expect(apiKeyMatches(key.slice(0, 10), key)).toBe(false);
    expect(apiKeyMatches(key + key, key)).toBe(false);
    expect(apiKeyMatches('ключ', 'ключ')).toBe(true);
  });
});
