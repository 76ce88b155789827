import type { CacheTier } from '../store/audit-records.js';

/** What the `Server-Timing` of a tools/call reports. */
export interface CallTimings {
  downstreamMs: number | null;
  cacheTier: CacheTier | null;
}

/** `Server-Timing`: time in the gateway and at the downstream, in ms, and the cache tier that answered. */
export function serverTiming(gatewayMs: number, call: CallTimings): string {
  let header = 'gateway;dur=' + twoDecimals(gatewayMs);
  if (call.downstreamMs !== null) header += ', downstream;dur=' + twoDecimals(call.downstreamMs);
  if (call.cacheTier !== null) header += ', cache;desc=' + call.cacheTier;
  return header;
}

/** Below this, a duration times 100 is exact enough that its rounding cannot differ from `toFixed`'s (1000 s). */
const FAST_BELOW_MS = 1e6;
/** How close to a half a hundredth may be before the rounding is left to `toFixed`. */
const TIE_MARGIN = 1e-6;

/**
 * `ms.toFixed(2)`, in a quarter of its time: every call formats one or two
 * durations. Integer arithmetic on hundredths gives the same digits except
 * where `ms * 100` lands within a hair of a half, where the product's own
 * rounding could tip it the other way than `toFixed`'s exact decimal; those,
 * and anything negative, huge or not a number, go to `toFixed`.
 */
export function twoDecimals(ms: number): string {
  if (!(ms >= 0 && ms < FAST_BELOW_MS)) return ms.toFixed(2);
  const scaled = ms * 100;
  const hundredths = Math.round(scaled);
  if (Math.abs(Math.abs(scaled - hundredths) - 0.5) < TIE_MARGIN) return ms.toFixed(2);
  const whole = Math.trunc(hundredths / 100);
  const fraction = hundredths - whole * 100;
  return whole + (fraction < 10 ? '.0' : '.') + fraction;
}
