/** Budgets live on UTC days: one calendar for every instance, whatever its zone. */

const DAY_MS = 24 * 60 * 60 * 1000;

/** The last day asked for, from its first millisecond. */
let lastDay = { startMs: Number.NaN, text: '' };

/** The UTC day of an instant, `YYYY-MM-DD`. */
export function utcDay(now: Date): string {
  const ms = now.getTime();
  // Asked on every call: the day's string is kept until the day ends.
  if (ms >= lastDay.startMs && ms < lastDay.startMs + DAY_MS) return lastDay.text;
  lastDay = { startMs: Math.floor(ms / DAY_MS) * DAY_MS, text: now.toISOString().slice(0, 10) };
  return lastDay.text;
}

/** The next 00:00 UTC strictly after `now`: when today's budget rolls over. */
export function nextUtcMidnight(now: Date): Date {
  return new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS + DAY_MS);
}
