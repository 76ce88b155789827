import { describe, expect, it } from 'vitest';
import { VerifiedTokenCache } from './verified-token-cache.js';

describe('VerifiedTokenCache', () => {
  it('forgets the oldest entry past its size and any entry past its exp', () => {
    const cache = new VerifiedTokenCache<{ exp: number; n: number }>(2);
    const exp = Math.floor(Date.now() / 1000) + 60;
    cache.set('a', { exp, n: 1 });
    cache.set('b', { exp, n: 2 });
    cache.set('c', { exp, n: 3 });
    expect(cache.get('a', Date.now())).toBeUndefined();
    expect(cache.get('c', Date.now())).toEqual({ exp, n: 3 });
    expect(cache.get('c', (exp + 1) * 1000)).toBeUndefined();
    expect(cache.get('c', Date.now())).toBeUndefined();
  });
});
