import { describe, expect, it } from 'vitest';
import { projectedExhaustion } from './agent-usage.js';

const resetsAt = '2030-01-02T00:00:00.000Z';
const at = (iso: string) => Date.parse(iso);

describe('projectedExhaustion', () => {
  it('projects the pace of today so far: half spent by 06:00 runs out at 12:00', () => {
    expect(
      projectedExhaustion({ dailyTokenBudget: 1000, used: 500, resetsAt }, at('2030-01-01T06:00:00Z'))?.toISOString(),
    ).toBe('2030-01-01T12:00:00.000Z');
  });

  it('says the reset when the pace does not run out today, now when it has, and nothing without spending', () => {
    expect(
      projectedExhaustion({ dailyTokenBudget: 1000, used: 100, resetsAt }, at('2030-01-01T12:00:00Z'))?.toISOString(),
    ).toBe(resetsAt);
    expect(
      projectedExhaustion({ dailyTokenBudget: 1000, used: 1000, resetsAt }, at('2030-01-01T12:00:00Z'))?.toISOString(),
    ).toBe('2030-01-01T12:00:00.000Z');
    expect(projectedExhaustion({ dailyTokenBudget: 1000, used: 0, resetsAt }, at('2030-01-01T12:00:00Z'))).toBeNull();
  });
});
