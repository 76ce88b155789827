// Targets, ratios and the printed tables (Markdown, so the README can quote them).

/**
 * Issue 30's targets, stated against the floor proxy (floor-proxy.mjs: the
 * work every call must do, done the cheapest way we know) and the two
 * official-SDK peers, each a ratio of figures measured in the same run.
 */
export const TARGETS = {
  /** Gateway CPU per call (Redis, cache off), each MCP era, at most this many times the floor proxy's. */
  cpuVsFloor: 1.5,
  /** A cache hit's CPU per call, at most this many times the floor proxy's (cache off: the mandated work of a call). */
  hitCpuVsFloor: 1.0,
  /** The v1 SDK peer's CPU per call, at least this many times the gateway's (its dearer era). */
  peerVsGateway: 2.0,
  /** The v2 SDK peer's CPU per call, more than the gateway's (its dearer era) times this. */
  v2PeerVsGateway: 1.0,
  /** Added latency (sequential rounds) over the floor proxy's own. */
  addedP50OverFloorUs: 250,
  addedP99OverFloorUs: 1000,
  /** Gateway CPU per call on a 3-master Redis Cluster, at most this many times its CPU on one Redis. */
  clusterVsOneRedis: 1.1,
  /** RSS of each serving process after the load, the embedding model loaded. */
  rssMb: 300,
  /** Redis round trips per call, one call at a time, what follows the reply (settle, audit) included (issue 19's, kept). */
  roundTripsPerCall: 2,
};

const ratio = (a, b) => (b > 0 ? Math.round((a / b) * 100) / 100 : null);
const cpuOf = (results, key) => results.throughput[key]?.cpu?.usPerCall;
/** Redis's own CPU per call beside a row (the masters summed for a cluster). */
const redisCpuOf = (results, key) => results.throughput[key]?.cpu?.contextUsPerCall?.redis;

/** RSS of every process that serves calls: the single-process gateways and each worker of a multi-process one (its primary serves none). */
export function servingRss(memory) {
  const rows = Object.entries(memory)
    .filter(([key]) => key.startsWith('gateway'))
    .flatMap(([key, row]) =>
      row.workers ? row.workers.map((worker, i) => [`${key} worker ${i + 1}`, worker.rssMb]) : [[key, row.rssMb]],
    );
  return rows.reduce((largest, row) => (row[1] > largest[1] ? row : largest), ['', 0]);
}

/**
 * The verdict lines: one per target of issue 30, plus a clean run. Judged on
 * the measured values; the ratios shown are rounded. A line whose rows the
 * run lacks (an older result, a run without the cluster) is left out.
 */
export function judge(results) {
  const { latency, throughput, memory, store } = results;
  const floor = cpuOf(results, 'floorProxy');
  const gateway = cpuOf(results, 'gatewayCacheOff');
  const stateless = cpuOf(results, 'gatewayStateless');
  const hit = cpuOf(results, 'gatewayCacheOn');
  const peer = cpuOf(results, 'sdkPeer');
  const v2Peer = cpuOf(results, 'sdkV2Peer');
  const cluster = cpuOf(results, 'gatewayCluster');
  // The peers are judged against the gateway's dearer era.
  const dearer = typeof stateless === 'number' ? Math.max(gateway, stateless) : gateway;
  const eraName = dearer === gateway ? '2025' : '2026-07-28';
  const lines = [];
  const line = (when, entry) => when && lines.push(entry);
  const has = (...values) => values.every((value) => typeof value === 'number');
  line(has(gateway, floor), {
    target: 'CPU per call: gateway (cache off, MCP 2025) / floor proxy',
    goal: `≤ ${TARGETS.cpuVsFloor}×`,
    value: ratio(gateway, floor),
    unit: '×',
    pass: gateway <= TARGETS.cpuVsFloor * floor,
    detail: `${gateway} / ${floor} µs`,
  });
  line(has(stateless, floor), {
    target: 'CPU per call: gateway (cache off, MCP 2026-07-28) / floor proxy',
    goal: `≤ ${TARGETS.cpuVsFloor}×`,
    value: ratio(stateless, floor),
    unit: '×',
    pass: stateless <= TARGETS.cpuVsFloor * floor,
    detail: `${stateless} / ${floor} µs`,
  });
  line(has(hit, floor), {
    target: 'CPU per call: cache hit / floor proxy',
    goal: `≤ ${TARGETS.hitCpuVsFloor}×`,
    value: ratio(hit, floor),
    unit: '×',
    pass: hit <= TARGETS.hitCpuVsFloor * floor,
    detail: `${hit} / ${floor} µs`,
  });
  line(has(peer, gateway), {
    target: 'CPU per call: SDK peer / gateway (cache off, dearer era)',
    goal: `≥ ${TARGETS.peerVsGateway}×`,
    value: ratio(peer, dearer),
    unit: '×',
    pass: peer >= TARGETS.peerVsGateway * dearer,
    detail: `${peer} / ${dearer} µs (${eraName})`,
  });
  line(has(v2Peer, gateway), {
    target: 'CPU per call: SDK v2 peer (createMcpHandler) / gateway (cache off, dearer era)',
    goal: `> ${TARGETS.v2PeerVsGateway}×`,
    value: ratio(v2Peer, dearer),
    unit: '×',
    pass: v2Peer > TARGETS.v2PeerVsGateway * dearer,
    detail: `${v2Peer} / ${dearer} µs (${eraName})`,
  });
  const overFloor = (percentile) =>
    latency.gatewayCacheOff.addedUs[percentile] - latency.floorProxy.addedUs[percentile];
  if (latency?.floorProxy && latency?.gatewayCacheOff) {
    lines.push({
      target: 'added latency p50: gateway (cache off) − floor proxy',
      goal: `≤ ${TARGETS.addedP50OverFloorUs} µs`,
      value: overFloor('p50'),
      unit: 'µs',
      pass: overFloor('p50') <= TARGETS.addedP50OverFloorUs,
      detail: `${latency.gatewayCacheOff.addedUs.p50} − ${latency.floorProxy.addedUs.p50} µs`,
    });
    lines.push({
      target: 'added latency p99: gateway (cache off) − floor proxy',
      goal: `≤ ${TARGETS.addedP99OverFloorUs} µs`,
      value: overFloor('p99'),
      unit: 'µs',
      pass: overFloor('p99') <= TARGETS.addedP99OverFloorUs,
      detail: `${latency.gatewayCacheOff.addedUs.p99} − ${latency.floorProxy.addedUs.p99} µs`,
    });
  }
  line(has(stateless, gateway), {
    target: 'CPU per call: MCP 2026-07-28 (no session) / MCP 2025',
    goal: '< 1×',
    value: ratio(stateless, gateway),
    unit: '×',
    pass: stateless < gateway,
    detail: `${stateless} / ${gateway} µs`,
  });
  const redisDetail = (key) => (has(redisCpuOf(results, key)) ? `${redisCpuOf(results, key)} µs` : '?');
  line(has(cluster, gateway), {
    target: 'CPU per call: gateway on a 3-master Redis Cluster / on one Redis',
    goal: `≤ ${TARGETS.clusterVsOneRedis}×`,
    value: ratio(cluster, gateway),
    unit: '×',
    pass: cluster <= TARGETS.clusterVsOneRedis * gateway,
    detail: `${cluster} / ${gateway} µs; Redis CPU per call ${redisDetail('gatewayCluster')} (3 masters) / ${redisDetail('gatewayCacheOff')} (one)`,
  });
  const [rssOf, rss] = servingRss(memory);
  lines.push({
    target: 'RSS after load, model loaded, per serving process',
    goal: `≤ ${TARGETS.rssMb} MB`,
    value: rss,
    unit: 'MB',
    pass: rss <= TARGETS.rssMb,
    detail: `the largest: ${ROW_NAMES[rssOf] ?? rssOf}`,
  });
  const roundTrips = store.sequential.gatewayCacheOff.roundTrips;
  lines.push({
    target: 'Redis round trips per call (cache off, one at a time)',
    goal: `≤ ${TARGETS.roundTripsPerCall}`,
    value: roundTrips,
    unit: '',
    pass: roundTrips <= TARGETS.roundTripsPerCall,
    detail: `${store.sequential.gatewayCacheOff.commands.total} commands per call`,
  });
  const clean = Object.values(throughput).every(
    (row) => row.errors === 0 && row.mismatches === 0 && row.non2xx === 0 && !row.cutShort,
  );
  lines.push({
    target: 'no errors, non-2xx or wrong bodies under load, every row complete',
    goal: '0',
    value: clean ? 0 : 'see rows',
    unit: '',
    pass: clean,
    detail: '',
  });
  return lines;
}

export const ROW_NAMES = {
  direct: 'direct downstream',
  bareProxy: 'bare Node proxy',
  floorProxy: 'floor proxy (mandated work only)',
  floorHit: 'floor proxy, cache hit',
  sdkPeer: 'SDK peer',
  sdkV2Peer: 'SDK v2 peer (createMcpHandler, stateless, MCP 2026-07-28 calls)',
  gatewayCluster: 'gateway, cache off, 3-master Redis Cluster',
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

const rowName = (key, results) =>
  key === 'gatewayWorkers' ? `${ROW_NAMES[key]}=${results.settings.workers}` : ROW_NAMES[key];

export function renderTables(results) {
  const { throughput, latency, memory, verdicts, settings } = results;
  const direct = throughput.direct.requestsPerSec;
  const floorCpu = cpuOf(results, 'floorProxy');
  const loadTable = table(
    [
      `process under test (${settings.connections} connections; median of ${settings.rounds} rounds of ${settings.calls} calls)`,
      'CPU µs/call',
      '× floor proxy',
      'its Redis CPU µs/call',
      'req/s',
      '× direct',
      'p50 ms',
      'p99 ms',
      'errors (timeouts)',
      'non-2xx',
      'wrong body',
      'other load (cores)',
    ],
    Object.entries(throughput).map(([key, row]) => [
      rowName(key, results) + (row.cutShort ? ` (cut short: ${row.calls} calls)` : ''),
      row.cpu.usPerCall,
      ratio(row.cpu.usPerCall, floorCpu),
      row.cpu.contextUsPerCall?.redis ?? '—',
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
    Object.entries(latency).map(([key, row]) => [
      ROW_NAMES[key],
      row.pairs,
      row.addedUs.p50,
      row.addedUs.p90,
      row.addedUs.p99,
      row.addedUs.mean,
      row.directUs.p50,
    ]),
  );
  const memoryTable = table(
    ['process', 'RSS after load (MB)', 'peak RSS (MB)', 'idle CPU (ms/s)'],
    Object.entries(memory).map(([key, row]) =>
      key === 'gatewayWorkers'
        ? [
            `${rowName(key, results)}: primary + workers`,
            `${row.rssMb} (${[row.primary.rssMb, ...row.workers.map((worker) => worker.rssMb)].join(' + ')})`,
            '',
            row.idleCpuMsPerSec ?? '—',
          ]
        : [ROW_NAMES[key], row.rssMb, row.peakRssMb, row.idleCpuMsPerSec ?? '—'],
    ),
  );
  const storeRows = (counts, how) =>
    Object.entries(counts ?? {}).map(([key, row]) => [
      `${rowName(key, results)}, ${how}`,
      row.roundTrips,
      row.commands.total,
      Object.entries(row.commands.perCommand)
        .map(([name, n]) => `${name} ${n}`)
        .join(', '),
    ]);
  const storeTable = table(
    ['Redis per tools/call', 'round trips', 'commands (inside scripts included)', 'by command'],
    [
      ...storeRows(results.store.sequential, 'one call at a time'),
      ...storeRows(results.store.underLoad, `under load (${settings.connections} connections)`),
    ],
  );
  const verdictTable = table(
    ['target', 'goal', 'measured', 'from', 'verdict'],
    verdicts.map((v) => [
      v.target,
      v.goal,
      `${v.value}${v.unit === '×' ? '×' : v.unit ? ` ${v.unit}` : ''}`,
      v.detail,
      v.pass ? 'PASS' : 'MISS',
    ]),
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
 * What each target leaves the gateway's own work (every step the floor does
 * not do) once the mandated work is paid: the target in µs, the mandated
 * work's cost (the floor proxy's; a hit's own floor for the cache-hit row),
 * what is left for the rest (target − that), and what the gateway's own work
 * measured (gateway − that). A row whose figures the results lack is left out.
 */
export function floorLeaves(results) {
  const floor = cpuOf(results, 'floorProxy');
  const rows = [];
  const cpuRow = (name, targetVsFloor, mandatedKey, gatewayKey) => {
    const mandated = cpuOf(results, mandatedKey);
    const gateway = cpuOf(results, gatewayKey);
    if (!(floor > 0) || typeof mandated !== 'number' || typeof gateway !== 'number') return;
    const target = round1(targetVsFloor * floor);
    rows.push({
      what: name,
      unit: 'µs CPU/call',
      target,
      targetGoal: `${targetVsFloor}× floor = ${target}`,
      floor: mandated,
      leftForTheRest: round1(target - mandated),
      gateway,
      gatewayAboveFloor: round1(gateway - mandated),
    });
  };
  cpuRow('CPU per call, cache off, MCP 2025', TARGETS.cpuVsFloor, 'floorProxy', 'gatewayCacheOff');
  cpuRow('CPU per call, cache off, MCP 2026-07-28', TARGETS.cpuVsFloor, 'floorProxy', 'gatewayStateless');
  cpuRow(
    'CPU per call, cache hit (its floor: the hit floor proxy)',
    TARGETS.hitCpuVsFloor,
    'floorHit',
    'gatewayCacheOn',
  );
  const { latency } = results;
  const floorP50 = latency?.floorProxy?.addedUs?.p50;
  const gatewayP50 = latency?.gatewayCacheOff?.addedUs?.p50;
  if (typeof floorP50 === 'number' && typeof gatewayP50 === 'number') {
    const target = TARGETS.addedP50OverFloorUs;
    rows.push({
      what: 'added latency p50, cache off',
      unit: 'µs',
      target: floorP50 + target,
      targetGoal: `floor + ${target}`,
      floor: floorP50,
      leftForTheRest: target,
      gateway: gatewayP50,
      gatewayAboveFloor: gatewayP50 - floorP50,
    });
  }
  return rows;
}

function floorTable(results) {
  const rows = floorLeaves(results);
  if (rows.length === 0) return undefined;
  const dash = (value) => (value === null || value === undefined ? '—' : value);
  return table(
    [
      'what the floor leaves (floor proxy: the mandated work only)',
      'target (µs)',
      'mandated work (µs)',
      'left for every other step (µs)',
      'gateway measured (µs)',
      'gateway above the mandated work (µs)',
    ],
    rows.map((row) => [
      row.what,
      row.targetGoal,
      row.floor,
      row.leftForTheRest,
      dash(row.gateway),
      dash(row.gatewayAboveFloor),
    ]),
  );
}

/** One gateway process against Gw:Http:Workers=N on the same machine: what the cores shared with the load generator allow. */
function workersTable(results) {
  const one = results.throughput.gatewayCacheOff;
  const many = results.throughput.gatewayWorkers;
  const row = (name, r) => [
    name,
    r.requestsPerSec,
    ratio(r.requestsPerSec, one.requestsPerSec),
    r.cpu.usPerCall,
    r.cpu.machineBusyCores,
    r.cpu.otherBusyCores,
  ];
  return table(
    [
      'gateway processes (cache off)',
      'req/s',
      '× one process',
      'CPU µs/call (all processes)',
      'machine busy (cores)',
      'other load (cores)',
    ],
    [row('one process (Gw:Http:Workers=1)', one), row(`primary + ${results.settings.workers} workers`, many)],
  );
}

/** The semantic tier's quality: the evaluation set's precision and recall, a replayed workload's hit ratio. */
function semanticTable({ evaluation, workload }) {
  return table(
    ['semantic cache (local model, threshold 0.92)', 'measured'],
    [
      [
        `evaluation set: ${evaluation.pairs} pairs (${evaluation.shouldHit} should hit, ${evaluation.mustNotHit} must not)`,
        `precision ${evaluation.precision}, recall ${evaluation.recall}`,
      ],
      ['must-not-hit pairs served (wrong answers)', evaluation.wrongAnswers.length],
      [
        'similarity alone, same threshold: wrong answers / recall',
        `${evaluation.similarityOnly.wrongAnswers} / ${evaluation.similarityOnly.recall}`,
      ],
      [
        `replayed workload: ${workload.calls} searches, one agent`,
        `hit ratio ${workload.hitRatio} (exact ${workload.exactHits}, semantic ${workload.semanticHits}), wrong ${workload.wrongHits}, unlabelled ${workload.unlabelledHits}`,
      ],
    ],
  );
}
