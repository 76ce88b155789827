// Targets, ratios and the printed tables (Markdown, so the README can quote them).

export const TARGETS = {
  addedP50Us: 500,
  addedP99Us: 2000,
  throughputVsDirect: 0.4,
  throughputVsPeer: 5,
  rssMb: 350,
};

const ratio = (a, b) => (b > 0 ? Math.round((a / b) * 100) / 100 : null);

/** The verdict lines: each target against the cache-off gateway (every call goes downstream). */
export function judge(results) {
  const { latency, throughput, memory } = results;
  const gateway = throughput.gatewayCacheOff.requestsPerSec;
  const rss = Math.max(memory.gatewayCacheOff.rssMb, memory.gatewayCacheOn.rssMb);
  const lines = [
    { target: 'added latency p50 (cache off)', goal: `≤ ${TARGETS.addedP50Us} µs`, value: latency.gatewayCacheOff.addedUs.p50, unit: 'µs', pass: latency.gatewayCacheOff.addedUs.p50 <= TARGETS.addedP50Us },
    { target: 'added latency p99 (cache off)', goal: `≤ ${TARGETS.addedP99Us} µs`, value: latency.gatewayCacheOff.addedUs.p99, unit: 'µs', pass: latency.gatewayCacheOff.addedUs.p99 <= TARGETS.addedP99Us },
    { target: 'throughput gateway (cache off) / direct', goal: `≥ ${TARGETS.throughputVsDirect}×`, value: ratio(gateway, throughput.direct.requestsPerSec), unit: '×', pass: ratio(gateway, throughput.direct.requestsPerSec) >= TARGETS.throughputVsDirect },
    { target: 'throughput gateway (cache off) / SDK peer', goal: `≥ ${TARGETS.throughputVsPeer}×`, value: ratio(gateway, throughput.sdkPeer.requestsPerSec), unit: '×', pass: ratio(gateway, throughput.sdkPeer.requestsPerSec) >= TARGETS.throughputVsPeer },
    { target: 'gateway RSS after load (model loaded)', goal: `≤ ${TARGETS.rssMb} MB`, value: rss, unit: 'MB', pass: rss <= TARGETS.rssMb },
  ];
  const clean = Object.values(throughput).every((row) => row.errors === 0 && row.mismatches === 0 && row.non2xx === 0);
  lines.push({ target: 'no errors, non-2xx or wrong bodies under load', goal: '0', value: clean ? 0 : 'see rows', unit: '', pass: clean });
  return lines;
}

export const ROW_NAMES = {
  direct: 'direct downstream',
  gatewayCacheOff: 'gateway, cache off',
  gatewayCacheOn: 'gateway, cache on (hits)',
  gatewayCacheHit: 'gateway, cache hit',
  gatewayCacheMiss: 'gateway, cache miss',
  sdkPeer: 'SDK peer',
};

function table(header, rows) {
  const line = (cells) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

export function renderTables(results) {
  const { throughput, latency, memory, verdicts } = results;
  const direct = throughput.direct.requestsPerSec;
  const peer = throughput.sdkPeer.requestsPerSec;
  const throughputTable = table(
    ['target (32 connections)', 'req/s', '× direct', '× SDK peer', 'p50 ms', 'p99 ms', 'errors (timeouts)', 'non-2xx', 'wrong body'],
    Object.entries(throughput).map(([key, row]) => [
      ROW_NAMES[key],
      row.requestsPerSec,
      ratio(row.requestsPerSec, direct),
      ratio(row.requestsPerSec, peer),
      row.latencyMs.p50,
      row.latencyMs.p99,
      `${row.errors} (${row.timeouts})`,
      row.non2xx,
      row.mismatches,
    ]),
  );
  const latencyTable = table(
    ['added latency vs direct (µs, per pair)', 'pairs', 'p50', 'p90', 'p99', 'mean', 'direct p50'],
    Object.entries(latency).map(([key, row]) => [ROW_NAMES[key], row.pairs, row.addedUs.p50, row.addedUs.p90, row.addedUs.p99, row.addedUs.mean, row.directUs.p50]),
  );
  const memoryTable = table(
    ['process', 'RSS after load (MB)', 'peak RSS (MB)'],
    Object.entries(memory).map(([key, row]) => [ROW_NAMES[key], row.rssMb, row.peakRssMb]),
  );
  const commandRows = (counts, how) =>
    Object.entries(counts ?? {}).map(([key, row]) => [`${ROW_NAMES[key]}, ${how}`, row.total, Object.entries(row.perCommand).map(([name, n]) => `${name} ${n}`).join(', ')]);
  const storeTable = table(
    ['Redis commands per tools/call (inside scripts included)', 'total', 'by command'],
    [...commandRows(results.storeCommands, 'one call at a time'), ...commandRows(results.storeCommandsUnderLoad, `under load (${results.settings.connections} connections)`)],
  );
  const verdictTable = table(
    ['target', 'goal', 'measured', 'verdict'],
    verdicts.map((v) => [v.target, v.goal, `${v.value}${v.unit === '×' ? '×' : v.unit ? ` ${v.unit}` : ''}`, v.pass ? 'PASS' : 'MISS']),
  );
  const tables = [throughputTable, latencyTable, memoryTable, storeTable, verdictTable];
  if (results.semanticCache) tables.push(semanticTable(results.semanticCache));
  return tables.join('\n\n');
}

/** The semantic tier's quality: the evaluation set's precision and recall, a replayed workload's hit ratio. */
function semanticTable({ evaluation, workload }) {
  return table(
    ['semantic cache (local model, threshold 0.92)', 'measured'],
    [
      [`evaluation set: ${evaluation.pairs} pairs (${evaluation.shouldHit} should hit, ${evaluation.mustNotHit} must not)`, `precision ${evaluation.precision}, recall ${evaluation.recall}`],
      ['must-not-hit pairs served (wrong answers)', evaluation.wrongAnswers.length],
      ['similarity alone, same threshold: wrong answers / recall', `${evaluation.similarityOnly.wrongAnswers} / ${evaluation.similarityOnly.recall}`],
      [`replayed workload: ${workload.calls} searches, one agent`, `hit ratio ${workload.hitRatio} (exact ${workload.exactHits}, semantic ${workload.semanticHits}), wrong ${workload.wrongHits}, unlabelled ${workload.unlabelledHits}`],
    ],
  );
}
