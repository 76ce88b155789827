import { ConfigError, type ConfigProblem, type DownstreamFailure } from '../errors.js';
import { DEFAULT_CONNECTIONS, DEFAULT_TIMEOUT_MS } from '../forward/forwarder.js';

/**
 * When the circuit opens. `consecutive`: after `failureThreshold` failures in
 * a row. `ratio`: when more than `failureRatio` of the calls in the last
 * `windowMs` failed, once at least `minimumCalls` calls were made in it.
 */
export type BreakerMode = 'consecutive' | 'ratio';

export interface BreakerOptions {
  /** Default `consecutive`. */
  mode?: BreakerMode;
  /** Failures in a row that open the circuit (consecutive mode), a whole number of 1 or more. Default 5. */
  failureThreshold?: number;
  /** Share of failed calls, above which the circuit opens (ratio mode), 0 < r < 1. Default 0.5. */
  failureRatio?: number;
  /** The sliding window of ratio mode, positive. Default 30 s. */
  windowMs?: number;
  /** Calls in the window before the ratio is judged, a whole number of 1 or more. Default 10. */
  minimumCalls?: number;
  /** How long the circuit stays open before one probe is let through, positive. Default 30 s. */
  breakMs?: number;
}

export interface RetryOptions {
  /** Extra attempts for GET and HEAD, 0 to 2. Default 2. */
  retries?: number;
  /** Shortest wait before a retry, a whole number of milliseconds, 1 or more. Default 50. */
  minDelayMs?: number;
  /** Longest wait before a retry, a whole number of milliseconds, at least `minDelayMs`. Default 250. */
  maxDelayMs?: number;
}

export type BreakerState = 'closed' | 'open' | 'half-open';

export interface BreakerStateChange {
  from: BreakerState;
  to: BreakerState;
  /** On a move to `open`: the failure that tipped it (safe to log; carries no secrets). */
  failure?: DownstreamFailure;
}

export interface ResilienceOptions {
  breaker?: BreakerOptions;
  retry?: RetryOptions;
  /**
   * The whole call, every retry and backoff included, positive. Give it the
   * same value as the inner forwarder's `timeoutMs` so a retry never makes a
   * call last longer than one attempt may. Default 10 s.
   */
  deadlineMs?: number;
  /**
   * Downstream calls in flight at once, all agents together, a whole number
   * of 1 or more. Give it the inner forwarder's `connections`: a call waits
   * here for a slot, fairly (agents take turns), before its deadline starts,
   * so the pool never queues it and time spent queueing is never taken for
   * the downstream's slowness. Default 128 (the HttpForwarder's default).
   */
  connections?: number;
  /** Told about every state move, for metrics and logs. Must not throw; a throw is reported as a process warning. */
  onStateChange?: (change: BreakerStateChange) => void;
  /** The downstream's name, when the gateway fronts several: its refusals say which API is isolated. */
  downstream?: string;
}

export const DEFAULT_BREAKER_OPTIONS: Readonly<Required<BreakerOptions>> = {
  mode: 'consecutive',
  failureThreshold: 5,
  failureRatio: 0.5,
  windowMs: 30_000,
  minimumCalls: 10,
  breakMs: 30_000,
};

export const DEFAULT_RETRY_OPTIONS: Readonly<Required<RetryOptions>> = {
  retries: 2,
  minDelayMs: 50,
  maxDelayMs: 250,
};

/** The most retries allowed: three attempts are enough to ride out a restart or a dropped keep-alive socket. */
export const MAX_RETRIES = 2;

export interface ResolvedResilienceOptions {
  breaker: Required<BreakerOptions>;
  retry: Required<RetryOptions>;
  deadlineMs: number;
  connections: number;
}

/**
 * Fills defaults (an `undefined` value takes its default) and refuses values
 * the gateway cannot run with: a ConfigError lists every problem by option
 * path (`breaker.failureThreshold`, `retry.maxDelayMs`, `deadlineMs`, `connections`). The
 * messages name no unit, so they read right whatever unit a caller's
 * configuration uses.
 */
export function resolveResilienceOptions(options: ResilienceOptions = {}): ResolvedResilienceOptions {
  const breaker = { ...DEFAULT_BREAKER_OPTIONS, ...defined(options.breaker) };
  const retry = { ...DEFAULT_RETRY_OPTIONS, ...defined(options.retry) };
  const deadlineMs = options.deadlineMs ?? DEFAULT_TIMEOUT_MS;
  const connections = options.connections ?? DEFAULT_CONNECTIONS;
  const problems: ConfigProblem[] = [];
  const wholeNumber = (path: string, value: number, min: number, max = Number.MAX_SAFE_INTEGER) => {
    if (Number.isSafeInteger(value) && value >= min && value <= max) return;
    const range = max === Number.MAX_SAFE_INTEGER ? `${min} or more` : `from ${min} to ${max}`;
    problems.push({ path, message: `must be a whole number ${range} (got ${value})` });
  };
  const positive = (path: string, value: number) => {
    if (!(Number.isFinite(value) && value > 0)) problems.push({ path, message: 'must be a positive number' });
  };

  if (breaker.mode !== 'consecutive' && breaker.mode !== 'ratio') {
    problems.push({
      path: 'breaker.mode',
      message: `must be "consecutive" or "ratio" (got ${JSON.stringify(breaker.mode)})`,
    });
  }
  wholeNumber('breaker.failureThreshold', breaker.failureThreshold, 1);
  if (!(breaker.failureRatio > 0 && breaker.failureRatio < 1)) {
    problems.push({
      path: 'breaker.failureRatio',
      message: `must be a number between 0 and 1, both excluded (got ${breaker.failureRatio})`,
    });
  }
  positive('breaker.windowMs', breaker.windowMs);
  wholeNumber('breaker.minimumCalls', breaker.minimumCalls, 1);
  positive('breaker.breakMs', breaker.breakMs);
  wholeNumber('retry.retries', retry.retries, 0, MAX_RETRIES);
  wholeNumber('retry.minDelayMs', retry.minDelayMs, 1);
  // Against the shortest wait when that one is valid (else it is already reported).
  wholeNumber(
    'retry.maxDelayMs',
    retry.maxDelayMs,
    Number.isSafeInteger(retry.minDelayMs) && retry.minDelayMs >= 1 ? retry.minDelayMs : 1,
  );
  positive('deadlineMs', deadlineMs);
  wholeNumber('connections', connections, 1);
  if (problems.length > 0) throw new ConfigError(problems);
  return { breaker, retry, deadlineMs, connections };
}

/** Drops `undefined` values so they do not hide defaults when spread. */
function defined<T extends object>(options: T | undefined): Partial<T> {
  return Object.fromEntries(Object.entries(options ?? {}).filter(([, value]) => value !== undefined)) as Partial<T>;
}
