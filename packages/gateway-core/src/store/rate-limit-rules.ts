/**
 * The arithmetic of the per-agent rate limit, as both adapters run it: GCRA
 * (the generic cell rate algorithm), which keeps one number per agent, the
 * "theoretical arrival time" (TAT) of its next call. Each call pushes it one
 * interval (a minute over `callsPerMinute`) later; a call is refused while
 * the TAT lies more than `burst - 1` intervals ahead of now. That is a token
 * bucket of `burst` calls refilled at `callsPerMinute`, without a refill
 * step. The Redis adapter repeats this in Lua (it must run inside the
 * script to stay atomic); the contract suite holds the two to the same results.
 */
import type { RateLimit } from './ports.js';

/** Limits the management API accepts; the store refuses anything else as a bug. */
export const MAX_CALLS_PER_MINUTE = 60_000;
export const MAX_BURST = 10_000;

export function checkRateLimit(limit: RateLimit): void {
  const { callsPerMinute, burst } = limit;
  if (!Number.isSafeInteger(callsPerMinute) || callsPerMinute < 1 || callsPerMinute > MAX_CALLS_PER_MINUTE) {
    throw new RangeError(
      `callsPerMinute must be a whole number from 1 to ${MAX_CALLS_PER_MINUTE}, got ${callsPerMinute}`,
    );
  }
  if (!Number.isSafeInteger(burst) || burst < 1 || burst > MAX_BURST) {
    throw new RangeError(`burst must be a whole number from 1 to ${MAX_BURST}, got ${burst}`);
  }
}

/** Milliseconds between calls at the limit's average rate. */
export function intervalMs(limit: RateLimit): number {
  return 60_000 / limit.callsPerMinute;
}

/** What a take at `now` does to a stored TAT (undefined: nothing stored, a full bucket). */
export type GcraStep = { ok: true; tat: number } | { ok: false; retryAfterMs: number };

export function gcraTake(stored: number | undefined, limit: RateLimit, now: number): GcraStep {
  const interval = intervalMs(limit);
  const tat = Math.max(stored ?? now, now);
  const allowedAt = tat - interval * (limit.burst - 1);
  if (allowedAt > now) return { ok: false, retryAfterMs: Math.ceil(allowedAt - now) };
  return { ok: true, tat: tat + interval };
}

/** The TAT once one call is given back; null when the bucket is then full (nothing needs keeping). */
export function gcraGiveBack(stored: number | undefined, limit: RateLimit, now: number): number | null {
  if (stored === undefined) return null;
  const tat = stored - intervalMs(limit);
  return tat > now ? tat : null;
}
