import { ConfigError } from '../errors.js';
import type { DownstreamFailure } from '../forward/errors.js';
import { DEFAULT_TIMEOUT_MS } from '../forward/forwarder.js';

/**
 * When the circuit opens. `consecutive`: after `failureThreshold` failures in
 * a row. `ratio`: when more than `failureRatio` of the calls in the last
 * `windowMs` failed, once at least `minimumCalls` calls were made in it.
 */
export type BreakerMode = 'consecutive' | 'ratio';

export interface BreakerOptions {
  /** `Gw:Breaker:Mode`. Default `consecutive`. */
  mode?: BreakerMode;
  /** `Gw:Breaker:FailureThreshold`: failures in a row that open the circuit (consecutive mode). Default 5. */
  failureThreshold?: number;
  /** `Gw:Breaker:FailureRatio`: share of failed calls, above which the circuit opens (ratio mode), 0 < r < 1. Default 0.5. */
  failureRatio?: number;
  /** `Gw:Breaker:WindowSeconds` × 1000: the sliding window of ratio mode. Default 30 s. */
  windowMs?: number;
  /** `Gw:Breaker:MinimumCalls`: calls in the window before the ratio is judged. Default 10. */
  minimumCalls?: number;
  /** `Gw:Breaker:BreakSeconds` × 1000: how long the circuit stays open before one probe is let through. Default 30 s. */
  breakMs?: number;
}

export interface RetryOptions {
  /** `Gw:Downstream:Retries`: extra attempts for GET and HEAD, 0 to 2. Default 2. */
  retries?: number;
  /** `Gw:Downstream:RetryMinDelayMs`: shortest wait before a retry. Default 50. */
  minDelayMs?: number;
  /** `Gw:Downstream:RetryMaxDelayMs`: longest wait before a retry. Default 250. */
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
   * `Gw:Downstream:TimeoutMs`: the whole call, every retry and backoff
   * included. Give it the same value as the inner forwarder's timeout so a
   * retry never makes a call last longer than one attempt may. Default 10 s.
   */
  deadlineMs?: number;
  /** Told about every state move, for metrics and logs. Must not throw; a throw is reported as a process warning. */
  onStateChange?: (change: BreakerStateChange) => void;
}

/** The configuration keys behind each option, for the app's config loader and error messages. */
export const RESILIENCE_CONFIG_KEYS = {
  mode: 'Gw:Breaker:Mode',
  failureThreshold: 'Gw:Breaker:FailureThreshold',
  failureRatio: 'Gw:Breaker:FailureRatio',
  windowSeconds: 'Gw:Breaker:WindowSeconds',
  minimumCalls: 'Gw:Breaker:MinimumCalls',
  breakSeconds: 'Gw:Breaker:BreakSeconds',
  retries: 'Gw:Downstream:Retries',
  retryMinDelayMs: 'Gw:Downstream:RetryMinDelayMs',
  retryMaxDelayMs: 'Gw:Downstream:RetryMaxDelayMs',
  deadlineMs: 'Gw:Downstream:TimeoutMs',
} as const;

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
}

/** Fills defaults and refuses values the gateway cannot run with, naming the configuration key. */
export function resolveResilienceOptions(options: ResilienceOptions = {}): ResolvedResilienceOptions {
  const breaker = { ...DEFAULT_BREAKER_OPTIONS, ...defined(options.breaker) };
  const retry = { ...DEFAULT_RETRY_OPTIONS, ...defined(options.retry) };
  const deadlineMs = options.deadlineMs ?? DEFAULT_TIMEOUT_MS;
  const keys = RESILIENCE_CONFIG_KEYS;

  if (breaker.mode !== 'consecutive' && breaker.mode !== 'ratio') throw new ConfigError(keys.mode, `must be "consecutive" or "ratio" (got ${JSON.stringify(breaker.mode)})`);
  requireInteger(keys.failureThreshold, breaker.failureThreshold, 1);
  if (!(breaker.failureRatio > 0 && breaker.failureRatio < 1)) throw new ConfigError(keys.failureRatio, `must be a number between 0 and 1, both excluded (got ${breaker.failureRatio})`);
  requirePositive(keys.windowSeconds, breaker.windowMs / 1000);
  requireInteger(keys.minimumCalls, breaker.minimumCalls, 1);
  requirePositive(keys.breakSeconds, breaker.breakMs / 1000);
  requireInteger(keys.retries, retry.retries, 0, MAX_RETRIES);
  requireInteger(keys.retryMinDelayMs, retry.minDelayMs, 1);
  requireInteger(keys.retryMaxDelayMs, retry.maxDelayMs, retry.minDelayMs);
  requirePositive(keys.deadlineMs, deadlineMs);
  return { breaker, retry, deadlineMs };
}

/** Drops `undefined` values so they do not hide defaults when spread. */
function defined<T extends object>(options: T | undefined): Partial<T> {
  return Object.fromEntries(Object.entries(options ?? {}).filter(([, value]) => value !== undefined)) as Partial<T>;
}

function requireInteger(key: string, value: number, min: number, max = Number.MAX_SAFE_INTEGER): void {
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `${min} or more` : `from ${min} to ${max}`;
    throw new ConfigError(key, `must be a whole number ${range} (got ${value})`);
  }
}

function requirePositive(key: string, value: number): void {
  if (!(Number.isFinite(value) && value > 0)) throw new ConfigError(key, `must be a positive number (got ${value})`);
}
