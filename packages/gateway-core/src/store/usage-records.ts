/**
 * Usage over time: what the tools/calls of one UTC hour came to, kept per
 * agent, tool, downstream and outcome as the calls happen, so a dashboard or
 * `GET /management/usage` reads a few counters instead of scanning the audit
 * trail. A cell holds counts only: never arguments, answers or identities
 * beyond the agent id.
 */

/**
 * Upper bounds (ms, inclusive) of the latency histogram's buckets; one more
 * bucket counts what is slower than the last. Percentiles read from it are
 * estimates within a bucket's width (see `latencyPercentile`).
 */
export const LATENCY_BOUNDS_MS = [5, 10, 25, 50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 30_000] as const;

export const HOUR_MS = 60 * 60 * 1000;
export const DAY_MS = 24 * HOUR_MS;

/** The calls of one hour of one agent, tool, downstream and outcome; '' where a dimension does not apply. */
export interface UsageCell {
  /** Start of the UTC hour, epoch ms. */
  hour: number;
  /** '' for calls refused before the caller was known. */
  agentId: string;
  /** '' for calls that named no tool the registry knows (the audit trail records no such name either). */
  tool: string;
  downstream: string;
  /** The audit outcome (`ok`, `cache-hit`, `budget-exhausted`…). */
  outcome: string;
  calls: number;
  tokens: number;
  cacheHits: number;
  /** Sum of each call's whole time in the gateway (downstream included), ms, rounded per call. */
  latencyMsSum: number;
  /** Calls per `LATENCY_BOUNDS_MS` bucket, one longer than the bounds. */
  latency: number[];
}

export interface UsageRange {
  /** Epoch ms; cells of hours starting at or after it. */
  from: number;
  /** Epoch ms; cells of hours starting before it. */
  to: number;
  /** Only this agent's cells; omitted = every agent. */
  agentId?: string;
}

/** Retention in days when the options name none (`Gw:Usage:RetentionDays`). */
export const DEFAULT_USAGE_RETENTION_DAYS = 35;

export function hourStart(ms: number): number {
  return ms - (((ms % HOUR_MS) + HOUR_MS) % HOUR_MS);
}

export function dayStart(ms: number): number {
  return ms - (((ms % DAY_MS) + DAY_MS) % DAY_MS);
}

/** `YYYY-MM-DD` of the UTC day holding `ms`. */
export function dayOf(ms: number): string {
  return new Date(dayStart(ms)).toISOString().slice(0, 10);
}

/** The cell's identity within its hour: which counters a new call adds to. */
export function cellKey(cell: Pick<UsageCell, 'hour' | 'agentId' | 'tool' | 'downstream' | 'outcome'>): string {
  return `${cell.hour}\u001f${cell.agentId}\u001f${cell.tool}\u001f${cell.downstream}\u001f${cell.outcome}`;
}

export function emptyLatency(): number[] {
  return new Array<number>(LATENCY_BOUNDS_MS.length + 1).fill(0);
}

/** The histogram bucket a call of `ms` falls in. */
export function latencyBucket(ms: number): number {
  for (let i = 0; i < LATENCY_BOUNDS_MS.length; i++) if (ms <= LATENCY_BOUNDS_MS[i]!) return i;
  return LATENCY_BOUNDS_MS.length;
}

/** Adds `from`'s counters to `into` (same identity). */
export function addCell(into: UsageCell, from: UsageCell): void {
  into.calls += from.calls;
  into.tokens += from.tokens;
  into.cacheHits += from.cacheHits;
  into.latencyMsSum += from.latencyMsSum;
  for (let i = 0; i < into.latency.length; i++) into.latency[i]! += from.latency[i] ?? 0;
}

export function copyCell(cell: UsageCell): UsageCell {
  return { ...cell, latency: [...cell.latency] };
}
