// Added latency, measured the way a caller feels it: sequential calls
// alternating the direct downstream and the proxies in front of it, on one
// keep-alive connection each, timed with process.hrtime.bigint(). Each
// round calls the downstream once and every proxy once, in an order that
// rotates; a proxy's added latency in that round is its time minus the
// direct time. The per-round difference cancels whatever the downstream and
// the machine were doing at that moment, and proxies measured in the same
// rounds are compared under the same conditions.

const micros = (nanos) => Number(nanos) / 1000;

async function timed(call) {
  const start = process.hrtime.bigint();
  await call();
  return micros(process.hrtime.bigint() - start);
}

/**
 * `direct` and each of `targets` (name → call) perform one complete call
 * (and throw if it failed). Returns, per target name, its added latency
 * (µs) and its own and the direct times.
 */
export async function addedLatencies({ direct, targets, pairs, warmup }) {
  const names = Object.keys(targets);
  const calls = [['direct', direct], ...names.map((name) => [name, targets[name]])];
  for (let i = 0; i < warmup; i++) for (const [, call] of calls) await call();
  const times = Object.fromEntries(calls.map(([name]) => [name, new Float64Array(pairs)]));
  for (let i = 0; i < pairs; i++) {
    // Rotate the order, so neither side always runs on a warmer cache or right after a GC of the other.
    for (let k = 0; k < calls.length; k++) {
      const [name, call] = calls[(i + k) % calls.length];
      times[name][i] = await timed(call);
    }
  }
  return Object.fromEntries(
    names.map((name) => [
      name,
      {
        pairs,
        warmup,
        addedUs: summary(times[name].map((t, i) => t - times.direct[i])),
        directUs: summary(times.direct),
        throughUs: summary(times[name]),
      },
    ]),
  );
}

/** One proxy against the direct call: `through` performs one call through it. */
export async function addedLatency({ direct, through, pairs, warmup }) {
  return (await addedLatencies({ direct, targets: { through }, pairs, warmup })).through;
}

/** p50/p90/p99 (nearest rank) and mean, rounded to whole microseconds. */
export function summary(values) {
  const sorted = Float64Array.from(values).sort();
  const rank = (p) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
  const mean = sorted.reduce((sum, value) => sum + value, 0) / sorted.length;
  return { p50: Math.round(rank(50)), p90: Math.round(rank(90)), p99: Math.round(rank(99)), mean: Math.round(mean) };
}
