import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../errors.js';
import { DAY_MS, emptyLatency, HOUR_MS, latencyBucket, type UsageCell } from '../store/usage-records.js';
import { latencyPercentile, parseUsageQuery, usageReport } from './usage-report.js';

const NOW = Date.parse('2030-01-10T12:34:00.000Z');

function fields(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    if (error instanceof InvalidInputError) return error.fields.map((f) => f.path);
    throw error;
  }
  return [];
}

describe('parseUsageQuery', () => {
  it('defaults to the last 24 hours by hour, widened to whole hours', () => {
    expect(parseUsageQuery({}, NOW)).toEqual({
      from: Date.parse('2030-01-09T12:00:00.000Z'),
      to: Date.parse('2030-01-10T13:00:00.000Z'),
      interval: 'hour',
      groupBy: null,
    });
  });

  it('takes ISO dates and date-times with a zone, an interval and a grouping', () => {
    expect(
      parseUsageQuery({ from: '2030-01-01', to: '2030-01-03T05:00:00+02:00', interval: 'day', groupBy: 'tool' }, NOW),
    ).toEqual({
      from: Date.parse('2030-01-01T00:00:00.000Z'),
      to: Date.parse('2030-01-04T00:00:00.000Z'),
      interval: 'day',
      groupBy: 'tool',
    });
  });

  it('refuses bad times, unknown intervals and groupings, reversed and overlong ranges, naming the field', () => {
    expect(fields(() => parseUsageQuery({ from: 'yesterday' }, NOW))).toEqual(['from']);
    expect(fields(() => parseUsageQuery({ to: '2030-01-01T10:00:00' }, NOW))).toEqual(['to']);
    expect(fields(() => parseUsageQuery({ interval: 'week', groupBy: 'colour' }, NOW))).toEqual([
      'interval',
      'groupBy',
    ]);
    expect(fields(() => parseUsageQuery({ from: '2030-01-05', to: '2030-01-04' }, NOW))).toEqual(['from']);
    expect(fields(() => parseUsageQuery({ from: '2029-01-01', to: '2030-01-04' }, NOW))).toEqual(['from']);
    expect(fields(() => parseUsageQuery({ from: '2029-01-01', to: '2030-01-04', interval: 'day' }, NOW))).toEqual([
      'from',
    ]);
    expect(fields(() => parseUsageQuery({ from: '2029-06-01', to: '2030-01-04', interval: 'day' }, NOW))).toEqual([]);
    expect(fields(() => parseUsageQuery({ agentId: '../agt' }, NOW))).toEqual(['agentId']);
    expect(parseUsageQuery({ agentId: 'agt_0123456789abcdefghijkl' }, NOW).agentId).toBe('agt_0123456789abcdefghijkl');
  });
});

function cell(overrides: Partial<UsageCell>, ms = 40): UsageCell {
  const latency = emptyLatency();
  latency[latencyBucket(ms)] = 1;
  return {
    hour: Date.parse('2030-01-10T10:00:00.000Z'),
    agentId: 'agt_a',
    tool: 't',
    downstream: 'd',
    outcome: 'ok',
    calls: 1,
    tokens: 10,
    cacheHits: 0,
    latencyMsSum: ms,
    latency,
    ...overrides,
  };
}

describe('usageReport', () => {
  const query = parseUsageQuery({ from: '2030-01-10T09:00:00Z', to: '2030-01-10T12:00:00Z' }, NOW);

  it('answers every bucket of the range without a grouping, with outcomes by class', () => {
    const report = usageReport(
      [
        cell({}),
        cell({ outcome: 'budget-exhausted', tokens: 0 }),
        cell({ outcome: 'unknown-tool', tool: '' }),
        cell({ hour: Date.parse('2030-01-10T11:00:00Z'), outcome: 'downstream-error' }),
      ],
      query,
    );
    expect(report.buckets.map((b) => [b.start, b.calls])).toEqual([
      ['2030-01-10T09:00:00.000Z', 0],
      ['2030-01-10T10:00:00.000Z', 3],
      ['2030-01-10T11:00:00.000Z', 1],
    ]);
    expect(report.totals[0]).toMatchObject({
      calls: 4,
      tokens: 30,
      errors: 3,
      outcomes: { success: 1, refusal: 1, 'agent-mistake': 1, 'downstream-failure': 1 },
    });
  });

  it('groups by agent into sparse buckets and totals, most calls first', () => {
    const report = usageReport(
      [cell({}), cell({ agentId: 'agt_b' }), cell({ agentId: 'agt_b', outcome: 'cache-hit', cacheHits: 1 })],
      { ...query, groupBy: 'agent' },
    );
    expect(report.buckets.map((b) => [b.group, b.calls])).toEqual([
      ['agt_b', 2],
      ['agt_a', 1],
    ]);
    expect(report.totals.map((t) => [t.group, t.calls, t.cacheHits])).toEqual([
      ['agt_b', 2, 1],
      ['agt_a', 1, 0],
    ]);
  });

  it('rolls hours into UTC days with interval=day', () => {
    const days = parseUsageQuery({ from: '2030-01-09', to: '2030-01-11', interval: 'day' }, NOW);
    const report = usageReport(
      [
        cell({}),
        cell({ hour: Date.parse('2030-01-09T23:00:00Z') }),
        cell({ hour: Date.parse('2030-01-10T00:00:00Z') }),
      ],
      days,
    );
    expect(report.buckets.map((b) => b.calls)).toEqual([1, 2]);
    expect(days.to - days.from).toBe(2 * DAY_MS);
    expect(HOUR_MS).toBe(3_600_000);
  });
});

describe('latencyPercentile', () => {
  it('interpolates within the bucket holding the rank, and says the last bound for the open bucket', () => {
    const histogram = emptyLatency();
    histogram[latencyBucket(40)] = 50; // 25..50 ms
    histogram[latencyBucket(400)] = 50; // 250..500 ms
    expect(latencyPercentile(histogram, 0.5)).toBe(50);
    expect(latencyPercentile(histogram, 0.95)).toBe(475);
    expect(latencyPercentile(emptyLatency(), 0.5)).toBeNull();
    const slow = emptyLatency();
    slow[slow.length - 1] = 3;
    expect(latencyPercentile(slow, 0.95)).toBe(30_000);
  });
});
