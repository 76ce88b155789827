// The `machine` block of a bench result: what ran it and how busy it was, so a
// figure from a shared machine is read with its load beside it.
import { cpus, loadavg, totalmem } from 'node:os';

const round2 = (n) => Math.round(n * 100) / 100;

/** `loadBefore`: `os.loadavg()` taken when the bench started; the after figures are taken now. */
export function machineSummary(loadBefore) {
  return {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? null,
    memoryGb: Math.round(totalmem() / 2 ** 30),
    loadAvgBefore: loadBefore.map(round2),
    loadAvgAfter: loadavg().map(round2),
  };
}
