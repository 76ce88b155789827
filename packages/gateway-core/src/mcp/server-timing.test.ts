import { describe, expect, it } from 'vitest';
import { serverTiming, twoDecimals } from './server-timing.js';

describe('twoDecimals', () => {
  it('gives the digits of toFixed(2) for durations from nothing to beyond the fast range', () => {
    const values = [
      0,
      -0,
      0.004,
      0.005,
      0.015,
      0.125,
      0.145,
      0.285,
      1.005,
      1.255,
      8.345,
      9.995,
      99.995,
      12.3,
      999_999.995,
      1e6,
      2.5e7,
      -1,
      Number.NaN,
      Infinity,
    ];
    for (let i = 0; i < 100_000; i++) {
      values.push(Math.random() * 10 ** Math.floor(Math.random() * 8 - 3));
      // Exactly on, and a hair around, a half hundredth.
      const tie = (Math.floor(Math.random() * 100_000) + 0.5) / 100;
      values.push(tie, tie + Number.EPSILON * tie * 4, tie - Number.EPSILON * tie * 4);
    }
    const wrong = values.filter((value) => twoDecimals(value) !== value.toFixed(2));
    expect(wrong).toEqual([]);
  });
});

describe('serverTiming', () => {
  it('names the gateway time, the downstream time when there was one, and the cache tier that answered', () => {
    expect(serverTiming(0.2345, { downstreamMs: 3, cacheTier: null })).toBe('gateway;dur=0.23, downstream;dur=3.00');
    expect(serverTiming(0.05, { downstreamMs: null, cacheTier: 'exact' })).toBe('gateway;dur=0.05, cache;desc=exact');
    expect(serverTiming(12, { downstreamMs: null, cacheTier: null })).toBe('gateway;dur=12.00');
  });
});
