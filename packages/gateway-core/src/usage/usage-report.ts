import { isAgentId } from '../agents/agent-id.js';
import { InvalidInputError, type InvalidField } from '../errors.js';
import {
  addCell,
  DAY_MS,
  dayStart,
  emptyLatency,
  HOUR_MS,
  hourStart,
  LATENCY_BOUNDS_MS,
  type UsageCell,
} from '../store/usage-records.js';
import { OUTCOME_CLASSES, outcomeClass, type OutcomeClass } from './outcome-class.js';

export const USAGE_INTERVALS = ['hour', 'day'] as const;
export type UsageInterval = (typeof USAGE_INTERVALS)[number];

export const USAGE_GROUPS = ['agent', 'tool', 'downstream', 'outcome'] as const;
export type UsageGroup = (typeof USAGE_GROUPS)[number];

/**
 * The longest range a query may ask for, in days, per interval: bounds the buckets of one answer (744 hours, 366 days).
 */
export const MAX_USAGE_RANGE_DAYS: Readonly<Record<UsageInterval, number>> = { hour: 31, day: 366 };

/** A checked query: bucket-aligned epoch ms, `from` inclusive, `to` exclusive. */
export interface UsageQuery {
  from: number;
  to: number;
  interval: UsageInterval;
  groupBy: UsageGroup | null;
  /** Only this agent's calls. */
  agentId?: string;
}

/**
 * What a range of calls came to. Latencies are estimated from
 * the histogram (within a bucket's width); null without calls.
 */
export interface UsageFigures {
  calls: number;
  tokens: number;
  cacheHits: number;
  /** Calls that did not succeed (every class but `success`). */
  errors: number;
  /** Calls per outcome class. */
  outcomes: Record<OutcomeClass, number>;
  latencyMs: { average: number | null; p50: number | null; p95: number | null };
}

export interface UsageBucket extends UsageFigures {
  /** ISO 8601 start of the hour or UTC day. */
  start: string;
  /** The group's value with `groupBy` (an agent id, tool, downstream or outcome; '' for none). */
  group?: string;
}

export interface UsageReport {
  from: string;
  to: string;
  interval: UsageInterval;
  groupBy: UsageGroup | null;
  /**
   * Without groupBy: every bucket of the range, empty ones too,
   * oldest first. With it: one per bucket and group that has calls.
   */
  buckets: UsageBucket[];
  /** The whole range: one entry, or one per group, most calls first. */
  totals: Array<UsageFigures & { group?: string }>;
}

/**
 * ISO 8601: a date, or a date and time with a zone (`Z` or an
 * offset). A time without a zone would read as the server's.
 */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2}))?$/;

export interface UsageQueryParams {
  from?: string | undefined;
  to?: string | undefined;
  interval?: string | undefined;
  groupBy?: string | undefined;
  agentId?: string | undefined;
}

/**
 * Checks a query from outside: ISO times, a known interval and grouping, and
 * an agent id if one is named, and a range that is not empty and at most `MAX_USAGE_RANGE_DAYS` long.
 * Defaults: `to` now, `interval` hour, `from` a day before `to` (30 days
 * with interval=day). The range is widened to whole buckets. Throws
 * InvalidInputError naming each bad field.
 */
export function parseUsageQuery(params: UsageQueryParams, now: number): UsageQuery {
  const fields: InvalidField[] = [];
  const interval = oneOf(params.interval, USAGE_INTERVALS, 'interval', fields) ?? 'hour';
  const groupBy = oneOf(params.groupBy, USAGE_GROUPS, 'groupBy', fields) ?? null;
  const agentId = params.agentId === undefined || params.agentId === '' ? undefined : params.agentId;
  if (agentId !== undefined && !isAgentId(agentId))
    fields.push({ path: 'agentId', message: 'must be an agent id (agt_…)' });
  const toMs = timeOf(params.to, 'to', fields) ?? now;
  const fromMs = timeOf(params.from, 'from', fields) ?? toMs - (interval === 'hour' ? DAY_MS : 30 * DAY_MS);
  const start = interval === 'hour' ? hourStart : dayStart;
  const step = interval === 'hour' ? HOUR_MS : DAY_MS;
  const from = start(fromMs);
  const to = start(toMs) === toMs ? toMs : start(toMs) + step;
  if (fields.length === 0) {
    if (fromMs >= toMs) fields.push({ path: 'from', message: 'must be before to' });
    else if (to - from > MAX_USAGE_RANGE_DAYS[interval] * DAY_MS) {
      fields.push({
        path: 'from',
        message: `must be at most ${MAX_USAGE_RANGE_DAYS[interval]} days before to with interval=${interval}`,
      });
    }
  }
  if (fields.length > 0) throw new InvalidInputError('Invalid usage query', fields);
  return agentId === undefined ? { from, to, interval, groupBy } : { from, to, interval, groupBy, agentId };
}

function oneOf<T extends string>(
  value: string | undefined,
  allowed: readonly T[],
  path: string,
  fields: InvalidField[],
): T | undefined {
  if (value === undefined || value === '') return undefined;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  fields.push({ path, message: `must be one of ${allowed.join(', ')}` });
  return undefined;
}

function timeOf(value: string | undefined, path: string, fields: InvalidField[]): number | undefined {
  if (value === undefined || value === '') return undefined;
  const ms = ISO_TIME.test(value) ? Date.parse(value) : NaN;
  if (Number.isNaN(ms)) {
    fields.push({ path, message: 'must be an ISO 8601 date or date-time with a zone (e.g. 2030-01-31T12:00:00Z)' });
    return undefined;
  }
  return ms;
}

/** Whose value a cell has for a grouping. */
export function groupOf(cell: UsageCell, groupBy: UsageGroup): string {
  if (groupBy === 'agent') return cell.agentId;
  return cell[groupBy];
}

/** The cells of a query's range as its answer: buckets (dense without groupBy) and totals. */
export function usageReport(cells: readonly UsageCell[], query: UsageQuery): UsageReport {
  const step = query.interval === 'hour' ? HOUR_MS : DAY_MS;
  const bucketOf = query.interval === 'hour' ? hourStart : dayStart;
  const buckets = new Map<string, Tally>();
  const totals = new Map<string, Tally>();
  for (const cell of cells) {
    if (cell.hour < query.from || cell.hour >= query.to) continue;
    const group = query.groupBy === null ? '' : groupOf(cell, query.groupBy);
    tallyOf(buckets, `${bucketOf(cell.hour)}\u001f${group}`).add(cell);
    tallyOf(totals, group).add(cell);
  }
  const grouped = query.groupBy !== null;
  const list: UsageBucket[] = [];
  if (grouped) {
    for (const [key, tally] of buckets) {
      const [at, group] = key.split('\u001f') as [string, string];
      list.push({ start: new Date(Number(at)).toISOString(), group, ...tally.figures() });
    }
    // ISO strings of one format sort as the times they name.
    list.sort((a, b) => a.start.localeCompare(b.start) || b.calls - a.calls || a.group!.localeCompare(b.group!));
  } else {
    for (let start = query.from; start < query.to; start += step) {
      list.push({ start: new Date(start).toISOString(), ...(buckets.get(`${start}\u001f`) ?? new Tally()).figures() });
    }
  }
  const totalList = grouped
    ? [...totals]
        .map(([group, tally]) => ({ group, ...tally.figures() }))
        .sort((a, b) => b.calls - a.calls || a.group.localeCompare(b.group))
    : [(totals.get('') ?? new Tally()).figures()];
  return {
    from: new Date(query.from).toISOString(),
    to: new Date(query.to).toISOString(),
    interval: query.interval,
    groupBy: query.groupBy,
    buckets: list,
    totals: totalList,
  };
}

function tallyOf(map: Map<string, Tally>, key: string): Tally {
  let tally = map.get(key);
  if (!tally) map.set(key, (tally = new Tally()));
  return tally;
}

/** Counters of many cells added up, with the class of each call's outcome. */
class Tally {
  readonly #sum: UsageCell = {
    hour: 0,
    agentId: '',
    tool: '',
    downstream: '',
    outcome: '',
    calls: 0,
    tokens: 0,
    cacheHits: 0,
    latencyMsSum: 0,
    latency: emptyLatency(),
  };
  readonly #outcomes = Object.fromEntries(OUTCOME_CLASSES.map((name) => [name, 0])) as Record<OutcomeClass, number>;

  add(cell: UsageCell): void {
    addCell(this.#sum, cell);
    this.#outcomes[outcomeClass(cell.outcome)] += cell.calls;
  }

  figures(): UsageFigures {
    const { calls, tokens, cacheHits, latencyMsSum, latency } = this.#sum;
    return {
      calls,
      tokens,
      cacheHits,
      errors: calls - this.#outcomes.success,
      outcomes: { ...this.#outcomes },
      latencyMs: {
        average: calls === 0 ? null : Math.round(latencyMsSum / calls),
        p50: latencyPercentile(latency, 0.5),
        p95: latencyPercentile(latency, 0.95),
      },
    };
  }
}

/**
 * The q-th quantile of a histogram, interpolated within its bucket (the
 * first bucket starts at 0 ms). In the open last bucket it is the last
 * bound: "at least that". Null for an empty histogram.
 */
export function latencyPercentile(histogram: readonly number[], q: number): number | null {
  const total = histogram.reduce((sum, count) => sum + count, 0);
  if (total === 0) return null;
  const rank = q * total;
  let below = 0;
  for (let i = 0; i < histogram.length; i++) {
    const count = histogram[i]!;
    if (count > 0 && below + count >= rank) {
      const lower = i === 0 ? 0 : LATENCY_BOUNDS_MS[i - 1]!;
      if (i >= LATENCY_BOUNDS_MS.length) return lower;
      const upper = LATENCY_BOUNDS_MS[i]!;
      return Math.round(lower + ((upper - lower) * (rank - below)) / count);
    }
    below += count;
  }
  return LATENCY_BOUNDS_MS.at(-1)!;
}
