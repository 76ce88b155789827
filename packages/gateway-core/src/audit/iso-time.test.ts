import { afterEach, describe, expect, it, vi } from 'vitest';
import { isoNow } from './iso-time.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('isoNow', () => {
  it('writes what toISOString writes, across milliseconds, seconds, days and years', () => {
    vi.useFakeTimers();
    const instants = [
      0,
      7,
      99,
      100,
      999,
      1_000,
      59_999,
      86_399_999,
      Date.UTC(2026, 10, 24, 23, 59, 59, 5),
      Date.UTC(2030, 0, 1),
      Date.UTC(10_000, 0, 1, 0, 0, 0, 42),
      -1,
    ];
    for (let i = 0; i < 2_000; i++) instants.push(Math.floor(Math.random() * 4e12));
    for (const instant of instants) {
      vi.setSystemTime(instant);
      expect(isoNow()).toBe(new Date(instant).toISOString());
    }
  });

  it('follows the clock within a second', () => {
    vi.useFakeTimers({ now: Date.UTC(2026, 10, 24, 4, 0, 0, 998) });
    expect(isoNow()).toBe('2026-11-24T04:00:00.998Z');
    vi.advanceTimersByTime(1);
    expect(isoNow()).toBe('2026-11-24T04:00:00.999Z');
    vi.advanceTimersByTime(1);
    expect(isoNow()).toBe('2026-11-24T04:00:01.000Z');
  });
});
