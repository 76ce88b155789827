import { describe, expect, it } from 'vitest';
import { nextUtcMidnight, utcDay } from './time.js';

describe('utcDay', () => {
  it('is the UTC calendar day, across midnight and back again', () => {
    const instants = [
      '2030-06-15T23:59:59.999Z',
      '2030-06-16T00:00:00.000Z',
      '2030-06-15T12:00:00.000Z',
      '1999-12-31T23:00:00.000Z',
      '2030-06-16T00:00:00.001Z',
    ];
    for (const iso of instants) expect(utcDay(new Date(iso))).toBe(iso.slice(0, 10));
  });

  it('is right for instants before 1970 too', () => {
    expect(utcDay(new Date('1969-12-31T23:59:59.999Z'))).toBe('1969-12-31');
    expect(utcDay(new Date('1970-01-01T00:00:00.000Z'))).toBe('1970-01-01');
  });

  it('refuses an invalid date', () => {
    expect(() => utcDay(new Date(Number.NaN))).toThrow(RangeError);
  });
});

describe('nextUtcMidnight', () => {
  it('is the next 00:00 UTC strictly after the instant', () => {
    expect(nextUtcMidnight(new Date('2030-06-15T10:30:00Z')).toISOString()).toBe('2030-06-16T00:00:00.000Z');
    expect(nextUtcMidnight(new Date('2030-06-16T00:00:00Z')).toISOString()).toBe('2030-06-17T00:00:00.000Z');
  });
});
