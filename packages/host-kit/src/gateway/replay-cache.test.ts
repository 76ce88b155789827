import { describe, expect, it } from 'vitest';
import { ReplayCache } from './replay-cache.js';

describe('ReplayCache', () => {
  it('refuses an id seen before while it lives, and forgets it once expired', () => {
    const cache = new ReplayCache(10);
    expect(cache.firstUse('a', 160, 100)).toBe(true);
    expect(cache.firstUse('a', 160, 159)).toBe(false);
    expect(cache.firstUse('a', 220, 161)).toBe(true);
  });

  it('holds no more than its bound, forgetting the oldest first, and drops expired ids as time passes', () => {
    const cache = new ReplayCache(3);
    for (const [index, id] of ['a', 'b', 'c', 'd'].entries()) cache.firstUse(id, 200 + index, 100);
    expect(cache.size).toBe(3);
    expect(cache.firstUse('a', 300, 101)).toBe(true);
    expect(cache.firstUse('d', 300, 101)).toBe(false);
    cache.firstUse('e', 400, 250);
    expect(cache.size).toBe(2);
  });
});
