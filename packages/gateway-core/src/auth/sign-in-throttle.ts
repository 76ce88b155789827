import { TooManyAttemptsError } from '../errors.js';
import type { AttemptCounter, AttemptRecord } from '../store/ports.js';

export const DEFAULT_SIGN_IN_MAX_FAILURES = 5;
export const DEFAULT_SIGN_IN_BACKOFF_MS = 1_000;
export const DEFAULT_SIGN_IN_MAX_BACKOFF_MS = 15 * 60_000;
/** Failures older than this (after the latest) are forgotten. */
export const DEFAULT_SIGN_IN_WINDOW_MS = 15 * 60_000;

export interface SignInThrottleOptions {
  attempts: AttemptCounter;
  /** Failures an address may make before it has to wait; default 5. */
  maxFailures?: number;
  /** The first wait, doubled with every further failure; default 1 s. */
  backoffMs?: number;
  /** The longest wait; default 15 min. */
  maxBackoffMs?: number;
  /** An address's failures are forgotten this long after its latest (or after its wait, if longer); default 15 min. */
  windowMs?: number;
  clock?: () => number;
}

/**
 * Admin-key sign-in attempts per client address, counted in the store so
 * every instance sees them. After `maxFailures` failures an address waits
 * `backoffMs` after its latest failure, doubled for each further failure up
 * to `maxBackoffMs`; while it waits every attempt is refused before the key
 * is compared. A successful sign-in clears the address.
 *
 * Checking and counting are two steps, so a burst of parallel guesses can
 * pass the check together: at most the number in flight more than `maxFailures`.
 */
export class SignInThrottle {
  readonly #attempts: AttemptCounter;
  readonly #maxFailures: number;
  readonly #backoffMs: number;
  readonly #maxBackoffMs: number;
  readonly #windowMs: number;
  readonly #clock: () => number;

  constructor(options: SignInThrottleOptions) {
    this.#attempts = options.attempts;
    this.#maxFailures = options.maxFailures ?? DEFAULT_SIGN_IN_MAX_FAILURES;
    this.#backoffMs = options.backoffMs ?? DEFAULT_SIGN_IN_BACKOFF_MS;
    this.#maxBackoffMs = Math.max(options.maxBackoffMs ?? DEFAULT_SIGN_IN_MAX_BACKOFF_MS, this.#backoffMs);
    this.#windowMs = options.windowMs ?? DEFAULT_SIGN_IN_WINDOW_MS;
    this.#clock = options.clock ?? Date.now;
  }

  /** Throws `TooManyAttemptsError` (with the seconds to wait) while the address must wait. */
  async check(address: string): Promise<void> {
    const record = await this.#attempts.read(subjectOf(address));
    const waitMs = record ? this.remainingWaitMs(record, this.#clock()) : 0;
    if (waitMs > 0)
      throw new TooManyAttemptsError(
        'Too many failed sign-in attempts from this address; try again later',
        waitMs / 1000,
      );
  }

  /** Counts a wrong key; returns how long the address must now wait (0 = none). */
  async failed(address: string): Promise<number> {
    const now = this.#clock();
    const failures = ((await this.#attempts.read(subjectOf(address)))?.failures ?? 0) + 1;
    const ttlMs = Math.max(this.#windowMs, this.waitAfter(failures));
    const record = await this.#attempts.recordFailure(subjectOf(address), now, ttlMs);
    return this.remainingWaitMs(record, now);
  }

  async succeeded(address: string): Promise<void> {
    await this.#attempts.clear(subjectOf(address));
  }

  /** The wait after `failures` failures: 0 below the limit, then `backoffMs` doubling to `maxBackoffMs`. */
  waitAfter(failures: number): number {
    if (failures < this.#maxFailures) return 0;
    const doublings = Math.min(failures - this.#maxFailures, 40);
    return Math.min(this.#backoffMs * 2 ** doublings, this.#maxBackoffMs);
  }

  remainingWaitMs(record: AttemptRecord, now: number): number {
    return Math.max(0, record.lastFailureAt + this.waitAfter(record.failures) - now);
  }
}

/** One subject per address: an IPv4 address seen through an IPv6 socket counts as itself. */
function subjectOf(address: string): string {
  const plain = address.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, '$1');
  return plain === '' ? 'unknown' : plain.toLowerCase();
}
