// Added latency, measured the way a caller feels it: sequential calls
// alternating the direct downstream and a proxy in front of it, on one
// keep-alive connection each, timed with process.hrtime.bigint(). The
// per-pair difference cancels whatever the downstream and the machine were
// doing at that moment, so its percentiles are the proxy's own cost.

const micros = (nanos) => Number(nanos) / 1000;

async function timed(call) {
  const start = process.hrtime.bigint();
  await call();
  return micros(process.hrtime.bigint() - start);
}

/**
 * `direct` and `through` each perform one complete call (and throw if it
 * failed). The order inside a pair alternates, so neither side always runs
 * on a warmer cache or right after a GC of the other.
 */
export async function addedLatency({ direct, through, pairs, warmup }) {
  for (let i = 0; i < warmup; i++) {
    await direct();
    await through();
  }
  const added = new Float64Array(pairs);
  const directTimes = new Float64Array(pairs);
  const throughTimes = new Float64Array(pairs);
  for (let i = 0; i < pairs; i++) {
    let d, t;
    if (i % 2 === 0) {
      d = await timed(direct);
      t = await timed(through);
    } else {
      t = await timed(through);
      d = await timed(direct);
    }
    added[i] = t - d;
    directTimes[i] = d;
    throughTimes[i] = t;
  }
  return {
    pairs,
    warmup,
    addedUs: summary(added),
    directUs: summary(directTimes),
    throughUs: summary(throughTimes),
  };
}

/** p50/p90/p99 (nearest rank) and mean, rounded to whole microseconds. */
export function summary(values) {
  const sorted = Float64Array.from(values).sort();
  const rank = (p) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
  const mean = sorted.reduce((sum, value) => sum + value, 0) / sorted.length;
  return { p50: Math.round(rank(50)), p90: Math.round(rank(90)), p99: Math.round(rank(99)), mean: Math.round(mean) };
}
