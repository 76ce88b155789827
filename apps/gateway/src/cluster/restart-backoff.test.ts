import { describe, expect, it } from 'vitest';
import { RestartBackoff } from './restart-backoff.js';

describe('RestartBackoff', () => {
  const options = { baseMs: 100, maxMs: 2_000, healthyAfterMs: 10_000 };

  it('replaces a worker that had been healthy after the base wait', () => {
    const backoff = new RestartBackoff(options);
    expect(backoff.next(60_000)).toBe(100);
    expect(backoff.next(60_000)).toBe(100);
  });

  it('doubles the wait for every young death in a row, up to the maximum', () => {
    const backoff = new RestartBackoff(options);
    expect([1, 2, 3, 4, 5, 6, 7].map(() => backoff.next(500))).toEqual([200, 400, 800, 1_600, 2_000, 2_000, 2_000]);
  });

  it('starts over once a worker lived long enough to count as healthy', () => {
    const backoff = new RestartBackoff(options);
    backoff.next(500);
    backoff.next(500);
    expect(backoff.next(10_000)).toBe(100);
    expect(backoff.next(500)).toBe(200);
  });

  it('stays finite however long the crash loop', () => {
    const backoff = new RestartBackoff(options);
    for (let i = 0; i < 2_000; i++) backoff.next(0);
    expect(backoff.next(0)).toBe(2_000);
  });
});
