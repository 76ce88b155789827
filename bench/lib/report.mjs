// Targets, ratios and the printed tables (Markdown, so the README can quote them).

/** Issue 19's targets: CPU per call against the bare proxy, latency over the bare proxy's, memory, Redis. */
export const TARGETS = {
  /** Gateway (cache off) CPU per call, at most this many times the bare proxy's. */
  cpuVsBare: 2.0,
  /** A cache hit's CPU per call, at most this many times the bare proxy's. */
  hitCpuVsBare: 1.0,
  /** The SDK peer's CPU per call, at least this many times the gateway's. */
  peerVsGateway: 2.0,
  /** Added latency (sequential rounds) over the bare proxy's own. */
  addedP50OverBareUs: 250,
  addedP99OverBareUs: 1000,
  rssMb: 300,
  /** Redis round trips per call, one call at a time, what follows the reply (settle, audit) included. */
  roundTripsPerCall: 2,
};

const ratio = (a, b) => (b > 0 ? Math.round((a / b) * 100) / 100 : null);
const cpuOf = (results, key) => results.throughput[key]?.cpu?.usPerCall;

/** The verdict lines: one per target of issue 19, plus a clean run. Judged on the measured values; the ratios shown are rounded. */
export function judge(results) {
  const { latency, throughput, memory, store } = results;
  const bare = cpuOf(results, 'bareProxy');
  const gateway = cpuOf(results, 'gatewayCacheOff');
  const hit = cpuOf(results, 'gatewayCacheOn');
  const peer = cpuOf(results, 'sdkPeer');
  const overBare = (percentile) => latency.gatewayCacheOff.addedUs[percentile] - latency.bareProxy.addedUs[percentile];
  const rss = Math.max(memory.gatewayCacheOff.rssMb, memory.gatewayCacheOn.rssMb);
  const roundTrips = store.sequential.gatewayCacheOff.roundTrips;
  const lines = [
    { target: 'CPU per call: gateway (cache off) / bare proxy', goal: `≤ ${TARGETS.cpuVsBare}×`, value: ratio(gateway, bare), unit: '×', pass: gateway <= TARGETS.cpuVsBare * bare, detail: `${gateway} / ${bare} µs` },
    { target: 'CPU per call: cache hit / bare proxy', goal: `≤ ${TARGETS.hitCpuVsBare}×`, value: ratio(hit, bare), unit: '×', pass: hit <= TARGETS.hitCpuVsBare * bare, detail: `${hit} / ${bare} µs` },
    { target: 'CPU per call: SDK peer / gateway (cache off)', goal: `≥ ${TARGETS.peerVsGateway}×`, value: ratio(peer, gateway), unit: '×', pass: peer >= TARGETS.peerVsGateway * gateway, detail: `${peer} / ${gateway} µs` },
    { target: 'added latency p50: gateway (cache off) − bare proxy', goal: `≤ ${TARGETS.addedP50OverBareUs} µs`, value: overBare('p50'), unit: 'µs', pass: overBare('p50') <= TARGETS.addedP50OverBareUs, detail: `${latency.gatewayCacheOff.addedUs.p50} − ${latency.bareProxy.addedUs.p50} µs` },
    { target: 'added latency p99: gateway (cache off) − bare proxy', goal: `≤ ${TARGETS.addedP99OverBareUs} µs`, value: overBare('p99'), unit: 'µs', pass: overBare('p99') <= TARGETS.addedP99OverBareUs, detail: `${latency.gatewayCacheOff.addedUs.p99} − ${latency.bareProxy.addedUs.p99} µs` },
    { target: 'gateway RSS after load (model loaded)', goal: `≤ ${TARGETS.rssMb} MB`, value: rss, unit: 'MB', pass: rss <= TARGETS.rssMb, detail: 'the larger of the two single-process gateways' },
    { target: 'Redis round trips per call (cache off, one at a time)', goal: `≤ ${TARGETS.roundTripsPerCall}`, value: roundTrips, unit: '', pass: roundTrips <= TARGETS.roundTripsPerCall, detail: `${store.sequential.gatewayCacheOff.commands.total} commands per call` },
  ];
  const clean = Object.values(throughput).every((row) => row.errors === 0 && row.mismatches === 0 && row.non2xx === 0 && !row.cutShort);
  lines.push({ target: 'no errors, non-2xx or wrong bodies under load, every row complete', goal: '0', value: clean ? 0 : 'see rows', unit: '', pass: clean, detail: '' });
  return lines;
}

export const ROW_NAMES = {
  direct: 'direct downstream',
  bareProxy: 'bare Node proxy',
  floorProxy: 'floor proxy (mandated work only)',
  floorHit: 'floor proxy, cache hit',
  sdkPeer: 'SDK peer',
  gatewayCacheOff: 'gateway, cache off',
  gatewayCacheOn: 'gateway, cache on (hits)',
  gatewayCacheHit: 'gateway, cache hit',
  gatewayCacheMiss: 'gateway, cache miss',
  gatewayWorkers: 'gateway, cache off, Gw:Http:Workers',
  gatewayStateless: 'gateway, cache off, MCP 2026-07-28 (no session)',
};

function table(header, rows) {
  const line = (cells) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

const rowName = (key, results) => (key === 'gatewayWorkers' ? `${ROW_NAMES[key]}=${results.settings.workers}` : ROW_NAMES[key]);

export function renderTables(results) {
  const { throughput, latency, memory, verdicts, settings } = results;
  const direct = throughput.direct.requestsPerSec;
  const bareCpu = cpuOf(results, 'bareProxy');
  const loadTable = table(
    [`process under test (${settings.connections} connections; median of ${settings.rounds} rounds of ${settings.calls} calls)`, 'CPU µs/call', '× bare proxy', 'req/s', '× direct', 'p50 ms', 'p99 ms', 'errors (timeouts)', 'non-2xx', 'wrong body', 'other load (cores)'],
    Object.entries(throughput).map(([key, row]) => [
      rowName(key, results) + (row.cutShort ? ` (cut short: ${row.calls} calls)` : ''),
      row.cpu.usPerCall,
      ratio(row.cpu.usPerCall, bareCpu),
      row.requestsPerSec,
      ratio(row.requestsPerSec, direct),
      row.latencyMs.p50,
      row.latencyMs.p99,
      `${row.errors} (${row.timeouts})`,
      row.non2xx,
      row.mismatches,
      row.cpu.otherBusyCores,
    ]),
  );
  const latencyTable = table(
    ['added latency vs direct (µs, per round of calls)', 'rounds', 'p50', 'p90', 'p99', 'mean', 'direct p50'],
    Object.entries(latency).map(([key, row]) => [ROW_NAMES[key], row.pairs, row.addedUs.p50, row.addedUs.p90, row.addedUs.p99, row.addedUs.mean, row.directUs.p50]),
  );
  const memoryTable = table(
    ['process', 'RSS after load (MB)', 'peak RSS (MB)'],
    Object.entries(memory).map(([key, row]) =>
      key === 'gatewayWorkers'
        ? [`${rowName(key, results)}: primary + workers`, `${row.rssMb} (${[row.primary.rssMb, ...row.workers.map((worker) => worker.rssMb)].join(' + ')})`, '']
        : [ROW_NAMES[key], row.rssMb, row.peakRssMb],
    ),
  );
  const storeRows = (counts, how) =>
    Object.entries(counts ?? {}).map(([key, row]) => [
      `${rowName(key, results)}, ${how}`,
      row.roundTrips,
      row.commands.total,
      Object.entries(row.commands.perCommand).map(([name, n]) => `${name} ${n}`).join(', '),
    ]);
  const storeTable = table(
    ['Redis per tools/call', 'round trips', 'commands (inside scripts included)', 'by command'],
    [...storeRows(results.store.sequential, 'one call at a time'), ...storeRows(results.store.underLoad, `under load (${settings.connections} connections)`)],
  );
  const verdictTable = table(
    ['target', 'goal', 'measured', 'from', 'verdict'],
    verdicts.map((v) => [v.target, v.goal, `${v.value}${v.unit === '×' ? '×' : v.unit ? ` ${v.unit}` : ''}`, v.detail, v.pass ? 'PASS' : 'MISS']),
  );
  const tables = [loadTable, latencyTable, memoryTable, storeTable];
  if (throughput.gatewayWorkers) tables.push(workersTable(results));
  tables.push(verdictTable);
  const leaves = floorTable(results);
  if (leaves) tables.push(leaves);
  if (results.semanticCache) tables.push(semanticTable(results.semanticCache));
  return tables.join('\n\n');
}

const round1 = (n) => Math.round(n * 10) / 10;

/**
 * What each target leaves once the floor proxy's work (floor-proxy.mjs: the
 * work the target itself mandates on every call) is paid: the target in µs,
 * the floor, the rest (target − floor, negative when the floor alone misses
 * it) and the gateway's cost above the floor. A row whose figures the results
 * lack (older runs had no floor rows) is left out.
 */
export function floorLeaves(results) {
  const bare = cpuOf(results, 'bareProxy');
  const rows = [];
  const cpuRow = (name, targetVsBare, floorKey, gatewayKey) => {
    const floor = cpuOf(results, floorKey);
    const gateway = cpuOf(results, gatewayKey);
    if (!(bare > 0) || typeof floor !== 'number') return;
    const target = round1(targetVsBare * bare);
    rows.push({ what: name, unit: 'µs CPU/call', floorVsBare: ratio(floor, bare), target, targetGoal: `${targetVsBare}× bare = ${target}`, floor, leftForTheRest: round1(target - floor), gateway: gateway ?? null, gatewayAboveFloor: typeof gateway === 'number' ? round1(gateway - floor) : null });
  };
  cpuRow('CPU per call, cache off', TARGETS.cpuVsBare, 'floorProxy', 'gatewayCacheOff');
  cpuRow('CPU per call, cache hit', TARGETS.hitCpuVsBare, 'floorHit', 'gatewayCacheOn');
  const { latency } = results;
  const bareP50 = latency?.bareProxy?.addedUs?.p50;
  const floorP50 = latency?.floorProxy?.addedUs?.p50;
  const gatewayP50 = latency?.gatewayCacheOff?.addedUs?.p50;
  if (typeof bareP50 === 'number' && typeof floorP50 === 'number') {
    const floor = floorP50 - bareP50;
    const target = TARGETS.addedP50OverBareUs;
    rows.push({ what: 'added latency p50 over the bare proxy, cache off', unit: 'µs', floorVsBare: null, target, targetGoal: `+${target}`, floor, leftForTheRest: target - floor, gateway: typeof gatewayP50 === 'number' ? gatewayP50 - bareP50 : null, gatewayAboveFloor: typeof gatewayP50 === 'number' ? gatewayP50 - floorP50 : null });
  }
  return rows;
}

function floorTable(results) {
  const rows = floorLeaves(results);
  if (rows.length === 0) return undefined;
  const dash = (value) => (value === null || value === undefined ? '—' : value);
  return table(
    ['what the floor leaves (floor proxy: the mandated work only)', 'floor / bare', 'target (µs)', 'floor (µs)', 'left for every other step: target − floor (µs)', 'gateway measured (µs)', 'gateway above the floor (µs)'],
    rows.map((row) => [row.what, row.floorVsBare === null ? '—' : `${row.floorVsBare}×`, row.targetGoal, row.floor, row.leftForTheRest, dash(row.gateway), dash(row.gatewayAboveFloor)]),
  );
}

/** One gateway process against Gw:Http:Workers=N on the same machine: what the cores shared with the load generator allow. */
function workersTable(results) {
  const one = results.throughput.gatewayCacheOff;
  const many = results.throughput.gatewayWorkers;
  const row = (name, r) => [name, r.requestsPerSec, ratio(r.requestsPerSec, one.requestsPerSec), r.cpu.usPerCall, r.cpu.machineBusyCores, r.cpu.otherBusyCores];
  return table(
    ['gateway processes (cache off)', 'req/s', '× one process', 'CPU µs/call (all processes)', 'machine busy (cores)', 'other load (cores)'],
    [row('one process (Gw:Http:Workers=1)', one), row(`primary + ${results.settings.workers} workers`, many)],
  );
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
