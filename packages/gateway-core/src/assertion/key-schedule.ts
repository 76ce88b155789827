/**
 * Which key signs when, and which keys are published. Time is cut into
 * periods of equal length counted from the Unix epoch, so every instance
 * agrees on the current period without talking to the others.
 */

/**
 * How long after its last assertion expired a key is still published: room
 * for clocks that disagree (instances, verifiers) and for a verifier's clock
 * tolerance.
 */
export const RETENTION_MARGIN_MS = 30_000;

/** The longest a verifier should reuse the published set. */
export const MAX_JWKS_CACHE_SECONDS = 300;

export function periodAt(nowMs: number, periodMs: number): number {
  return Math.floor(nowMs / periodMs);
}

/**
 * The periods whose keys are published at `nowMs`: every earlier one that
 * may still have an unexpired assertion (one signed at the last moment of
 * the period lives `lifetimeMs` beyond its end), the current one, and the
 * next one, so a verifier that cached the set never meets an unknown key
 * when the period turns.
 */
export function publishedPeriods(nowMs: number, periodMs: number, lifetimeMs: number): { first: number; last: number } {
  const current = periodAt(nowMs, periodMs);
  const first = Math.min(current, Math.floor((nowMs - lifetimeMs - RETENTION_MARGIN_MS) / periodMs));
  return { first, last: current + 1 };
}

/**
 * The JWKS answer's max-age: a set read at most half a period ago still
 * holds the key of the period now current, because it published the next
 * one. Five minutes at most, one second at least.
 */
export function jwksMaxAgeSeconds(periodMs: number): number {
  return Math.max(1, Math.min(MAX_JWKS_CACHE_SECONDS, Math.floor(periodMs / 2000)));
}
