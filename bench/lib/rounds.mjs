// The load rows measured in several rounds, each round running every target
// once in a rotated order, and each figure reported as the median of its
// rounds. On a shared machine whatever else runs comes and goes: a target
// measured once, minutes after another, can look better or worse than it is;
// interleaved rounds give every target the same spread of neighbours, and
// the median drops the round that caught a burst.

const median = (values) => {
  const sorted = values.filter((value) => typeof value === 'number' && Number.isFinite(value)).sort((a, b) => a - b);
  if (sorted.length === 0) return null;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : Math.round(((sorted[middle - 1] + sorted[middle]) / 2) * 100) / 100;
};
const sum = (values) => values.reduce((total, value) => total + value, 0);

/**
 * `rows`: [key, run] pairs, `run(round)` measuring one round (0, 1, ...) of that target.
 * Returns key → the merged row, its rounds under `rounds`.
 */
export async function inRounds(rows, count, onRound = () => undefined) {
  const measured = Object.fromEntries(rows.map(([key]) => [key, []]));
  for (let round = 0; round < count; round++) {
    for (let i = 0; i < rows.length; i++) {
      const [key, run] = rows[(round + i) % rows.length];
      const row = await run(round);
      measured[key].push(row);
      onRound(key, round, row);
    }
  }
  return Object.fromEntries(Object.entries(measured).map(([key, rounds]) => [key, merge(rounds)]));
}

/** Rates, CPU, latencies and store costs: medians; counts of calls and problems: sums. */
function merge(rounds) {
  const pick = (read) => median(rounds.map(read));
  // The by-command breakdown of the round whose CPU per call was the median (or the first).
  const typical = rounds.find((row) => row.cpu?.usPerCall === pick((row) => row.cpu?.usPerCall)) ?? rounds[0];
  return {
    rounds: rounds.length,
    connections: rounds[0].connections,
    calls: sum(rounds.map((row) => row.calls)),
    cutShort: rounds.some((row) => row.cutShort),
    requestsPerSec: pick((row) => row.requestsPerSec),
    latencyMs: {
      p50: pick((row) => row.latencyMs.p50),
      p90: pick((row) => row.latencyMs.p90),
      p99: pick((row) => row.latencyMs.p99),
      mean: pick((row) => row.latencyMs.mean),
    },
    errors: sum(rounds.map((row) => row.errors)),
    timeouts: sum(rounds.map((row) => row.timeouts)),
    non2xx: sum(rounds.map((row) => row.non2xx)),
    mismatches: sum(rounds.map((row) => row.mismatches)),
    cpu: {
      pids: typical.cpu.pids,
      usPerCall: pick((row) => row.cpu.usPerCall),
      usPerCallByPid: Object.fromEntries(
        Object.keys(typical.cpu.usPerCallByPid).map((pid) => [pid, pick((row) => row.cpu.usPerCallByPid[pid])]),
      ),
      contextUsPerCall: Object.fromEntries(
        Object.keys(typical.cpu.contextUsPerCall).map((name) => [name, pick((row) => row.cpu.contextUsPerCall[name])]),
      ),
      machineBusyCores: pick((row) => row.cpu.machineBusyCores),
      otherBusyCores: pick((row) => row.cpu.otherBusyCores),
    },
    ...(typical.store && {
      store: {
        ...typical.store,
        roundTrips: pick((row) => row.store.roundTrips),
        commands: { ...typical.store.commands, total: pick((row) => row.store.commands.total) },
      },
    }),
    // Every round as measured, for whoever doubts a median.
    each: rounds,
  };
}
