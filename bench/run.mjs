// `pnpm bench`: what a call through the gateway costs, against the bare
// downstream, a bare Node proxy and a hand-written SDK proxy, in one run on
// this machine.
//
//   node bench/run.mjs [--profile] [--quick] [--out <name>] [--calls 3000] [--rounds 3] [--connections 16] [--warmup 2] [--pairs 2000] [--workers 2]
//
// --quick (or BENCH_QUICK=1) shortens the run to a few minutes on a busy
// machine: 1,500 calls per round, 600 latency pairs, no Gw:Http:Workers row,
// no semantic-cache evaluation; every target is still judged, on 3 rounds.
// Its result goes to bench/results/quick-<timestamp>.json (or <name>.json
// with --out), never to latest.json, which only a full run writes.
//
// Starts the echo downstream, the bare proxy, the floor proxy (cache off and
// FLOOR_MODE=hit, each on a redis-server of its own), the SDK peer, the v2 SDK
// peer (createMcpHandler, stateless, loaded with 2026-07-28 calls), a BUILT
// gateway on a 3-master Redis Cluster (cache off; the masters' CPU per call
// beside it, as one redis-server's beside the others) and three BUILT
// gateways (production mode, LOG_LEVEL=warn, auth + budget + privacy + cap +
// audit on every call), each on a redis-server of its own so Redis's counters
// are that gateway's alone: cache off, cache on (hits), and cache off with
// Gw:Http:Workers=2 (0 = leave that one out). All on loopback. For every
// process under load: CPU time per call (utime + stime from /proc), req/s and
// latency, each the median of interleaved rounds; added latency in
// sequential rounds; RSS; Redis round trips and commands per call. Prints Markdown tables and writes
// bench/results/<timestamp>.json and latest.json.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startRedisCluster, startRedisServer } from '@tollgate/gateway-core/testing';
import { CLOCK_TICKS, cpuPerCall, idleCpu, processTree } from './lib/cpu.mjs';
import { addedLatencies, addedLatency } from './lib/latency.mjs';
import { throughput, UNIQUE_ID } from './lib/load.mjs';
import { inRounds } from './lib/rounds.mjs';
import {
  agentToken,
  exchange,
  keepAliveAgent,
  openSession,
  sessionHeaders,
  statelessHeaders,
  statelessToolCallBody,
  toolAnswer,
  toolCallBody,
} from './lib/mcp.mjs';
import { probeCost, redisCounters, storeCostHook, storeCostPerCall } from './lib/redis-stats.mjs';
import { answers, freePort, listeningLine, memoryOf, onStop, startNode, stopAll } from './lib/processes.mjs';
import { startFloorProxy } from './lib/floor.mjs';
import { machineSummary } from './lib/machine.mjs';
import { floorLeaves, judge, renderTables } from './lib/report.mjs';
import { semanticCacheQuality } from './lib/semantic-cache.mjs';
import { summarizeProfile } from './profile-summary.mjs';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const GATEWAY_MAIN = here('../apps/gateway/dist/main.js');
/** The gateway runs as its image runs it: with the NODE_OPTIONS (V8 heap limits) the Dockerfile sets. */
const GATEWAY_NODE_OPTIONS = imageNodeOptions(here('../Dockerfile'));
const RESULTS_DIR = here('./results/');
const PROFILES_DIR = here('./results/profiles/');
/** The whole run must end within this, whatever hangs. */
const DEADLINE_MS = 12 * 60_000;

const { values: args } = parseArgs({
  options: {
    profile: { type: 'boolean', default: false },
    quick: { type: 'boolean', default: process.env.BENCH_QUICK === '1' },
    out: { type: 'string' },
    calls: { type: 'string', default: '3000' },
    rounds: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '2' },
    pairs: { type: 'string', default: '2000' },
    connections: { type: 'string', default: '16' },
    workers: { type: 'string', default: '2' },
  },
});
// --quick: what it shortens, unless the same option is given explicitly.
const QUICK = { calls: '1500', pairs: '600', warmup: '1', workers: '0' };
if (args.quick)
  for (const [name, value] of Object.entries(QUICK))
    if (!process.argv.some((arg) => arg.startsWith(`--${name}`))) args[name] = value;
const settings = {
  quick: args.quick,
  connections: Number(args.connections),
  /** Calls measured per target and round after its warm-up (the same load for every process). */
  calls: Number(args.calls),
  /** Rounds over every target, in rotated order; each figure is the median of its rounds. */
  rounds: Number(args.rounds),
  /** Warm-up before a target's first round; later rounds find it warm and only open their connections. */
  warmupSec: Number(args.warmup),
  warmupLaterSec: 0.5,
  /** A target that cannot make `calls` calls in this long is cut short (the row says so). */
  maxSecPerTarget: 90,
  pairs: Number(args.pairs),
  warmupPairs: 200,
  // The cache hit/miss and SDK-peer latency rows are context, not targets: fewer pairs keep the run short.
  sidePairs: Math.max(200, Math.round(Number(args.pairs) / 2)),
  /** Sequential calls over which Redis round trips and commands per call are counted. */
  storeCalls: 200,
  /** After the load, every process left idle this long: its CPU per second serving nothing. */
  idleSec: 5,
  workers: Number(args.workers),
  profile: args.profile,
  logLevel: 'warn',
  gatewayNodeOptions: GATEWAY_NODE_OPTIONS,
  clockTicksPerSecond: CLOCK_TICKS,
};

const log = (line) => process.stderr.write(`bench: ${line}\n`);

async function main() {
  if (!existsSync(GATEWAY_MAIN)) throw new Error(`${GATEWAY_MAIN} is missing: run the build first (pnpm bench does)`);
  const startedAt = new Date();
  const loadBefore = loadavg();

  log(
    'starting the echo downstream, the bare proxy, the floor proxies, the SDK peer, and the gateways each on its own redis-server',
  );
  const downstream = await startNode('echo downstream', [here('./echo-downstream.mjs')], {
    env: { PORT: '0' },
    ready: listeningLine,
  });
  const signingKey = randomBytes(32).toString('hex');
  const adminKey = randomBytes(32).toString('hex');
  const gatewayAt = async (name, { cache, workers = 1, cluster = false }) => {
    const redis = cluster ? await startRedisCluster() : await startRedisServer();
    onStop(() => redis.stop());
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    // Profiles of single-process gateways only: forked workers would inherit the flags and write over each other's file.
    const nodeFlags =
      settings.profile && workers === 1
        ? ['--cpu-prof', `--cpu-prof-dir=${PROFILES_DIR}`, `--cpu-prof-name=${name}-${stamp(startedAt)}.cpuprofile`]
        : [];
    if (settings.profile) await mkdir(PROFILES_DIR, { recursive: true });
    const env = {
      NODE_OPTIONS: GATEWAY_NODE_OPTIONS,
      NODE_ENV: 'production',
      LOG_LEVEL: settings.logLevel,
      PORT: String(port),
      HOST: '127.0.0.1',
      Gw__LicenseKey: 'bench-license',
      Gw__Jwt__SigningKey: signingKey,
      Gw__Admin__ApiKey: adminKey,
      Gw__ToolRegistry__DownstreamBaseUrl: downstream.url,
      ConnectionStrings__Store: redis.url,
      Gw__Cache__Enabled: String(cache),
      Gw__Http__Workers: String(workers),
    };
    // Ready = store answers and the embedding model is loaded (contract 2.6).
    const gateway = await startNode(name, [...nodeFlags, GATEWAY_MAIN], {
      env,
      ready: answers(url, '/health/ready'),
      timeoutMs: 90_000,
    });
    if (cluster) {
      // Every master's redis-server, for its CPU per call; no round-trip counts (they are one server's).
      const pids = await Promise.all(redis.nodes.map(async (node) => (await redisCounters(node.port)).pid));
      return { ...gateway, redis: { pids } };
    }
    const counters = await redisCounters(redis.port);
    return {
      ...gateway,
      redis: { port: redis.port, pid: counters.pid, pids: [counters.pid], probe: await probeCost(redis.port) },
    };
  };
  // The bare proxy plus only the work issue 19's target mandates on every call (floor-proxy.mjs): what the target leaves.
  const floorAt = async (name, mode) => {
    const floor = await startFloorProxy(name, downstream.url, { mode });
    return { ...floor, redis: { pid: (await redisCounters(floor.redis.port)).pid } };
  };
  const [bare, floor, floorHit, peer, v2Peer, gatewayOff, gatewayOn, gatewayWorkers] = await Promise.all([
    startNode('bare proxy', [here('./bare-proxy.mjs')], {
      env: { PORT: '0', DOWNSTREAM_URL: downstream.url },
      ready: listeningLine,
    }),
    floorAt('floor proxy'),
    floorAt('floor proxy (hit)', 'hit'),
    startNode('sdk peer', [here('./sdk-peer.mjs')], {
      env: { PORT: '0', DOWNSTREAM_URL: downstream.url },
      ready: listeningLine,
    }),
    startNode('sdk v2 peer', [here('./sdk-v2-peer.mjs')], {
      env: { PORT: '0', DOWNSTREAM_URL: downstream.url },
      ready: listeningLine,
    }),
    gatewayAt('gateway-cache-off', { cache: false }),
    gatewayAt('gateway-cache-on', { cache: true }),
    settings.workers > 1
      ? gatewayAt(`gateway-workers-${settings.workers}`, { cache: false, workers: settings.workers })
      : undefined,
  ]);

  // The cluster alone, after the rest: its set-up (MEET, slots, a connection per master) timed out under the burst of every start at once.
  const gatewayCluster = await gatewayAt('gateway-cluster', { cache: false, cluster: true });
  const gateways = {
    off: gatewayOff,
    on: gatewayOn,
    cluster: gatewayCluster,
    ...(gatewayWorkers && { workers: gatewayWorkers }),
  };
  const tokens = {};
  for (const [key, gateway] of Object.entries(gateways)) tokens[key] = await agentToken(gateway.url, adminKey);
  const agents = {
    direct: keepAliveAgent(),
    bare: keepAliveAgent(),
    floor: keepAliveAgent(),
    floorHit: keepAliveAgent(),
    off: keepAliveAgent(),
    on: keepAliveAgent(),
    peer: keepAliveAgent(),
    v2Peer: keepAliveAgent(),
    cluster: keepAliveAgent(),
    workers: keepAliveAgent(),
    stateless: keepAliveAgent(),
  };
  const sessions = {
    bare: await openSession(bare.url, undefined, agents.bare),
    floor: await openSession(floor.url, undefined, agents.floor),
    floorHit: await openSession(floorHit.url, undefined, agents.floorHit),
    peer: await openSession(peer.url, undefined, agents.peer),
  };
  for (const key of Object.keys(gateways))
    sessions[key] = await retryUntilLoaded(() => openSession(gateways[key].url, tokens[key], agents[key]));

  // One call each, checked in full before anything is timed.
  const directItem = `${downstream.url}/items/1`;
  const call = (target, agent, sessionId, bearer, id = 1, rpcId = 1) =>
    exchange(`${target}/mcp`, {
      method: 'POST',
      agent,
      headers: sessionHeaders(sessionId, bearer),
      body: toolCallBody(id, rpcId),
    });
  const expected = {
    direct: (await exchange(directItem, { agent: agents.direct })).text,
    // The reply autocannon must get, with its unique JSON-RPC id put back to the placeholder.
    bare: await call(bare.url, agents.bare, sessions.bare, undefined, 1, UNIQUE_ID),
    floor: await call(floor.url, agents.floor, sessions.floor, undefined, 1, UNIQUE_ID),
    floorHit: await call(floorHit.url, agents.floorHit, sessions.floorHit, undefined, 1, UNIQUE_ID),
    peer: await call(peer.url, agents.peer, sessions.peer, undefined, 1, UNIQUE_ID),
  };
  for (const key of Object.keys(gateways))
    expected[key] = await call(gateways[key].url, agents[key], sessions[key], tokens[key], 1, UNIQUE_ID);
  // MCP 2026-07-28 on the cache-off gateway: the same call with no session, beside its 2025 calls (issue 26).
  const statelessCall = (id = 1, rpcId = 1) =>
    exchange(`${gatewayOff.url}/mcp`, {
      method: 'POST',
      agent: agents.stateless,
      headers: statelessHeaders(tokens.off),
      body: statelessToolCallBody(id, rpcId),
    });
  expected.stateless = await statelessCall(1, UNIQUE_ID);
  // The v2 SDK peer serves 2026-07-28 calls as its stateless entry is meant to: no session, the envelope in each call.
  const v2PeerCall = (id = 1, rpcId = 1) =>
    exchange(`${v2Peer.url}/mcp`, {
      method: 'POST',
      agent: agents.v2Peer,
      headers: statelessHeaders(),
      body: statelessToolCallBody(id, rpcId),
    });
  expected.v2Peer = await v2PeerCall(1, UNIQUE_ID);
  for (const key of ['bare', 'floor', 'floorHit', 'peer', 'v2Peer', 'stateless', ...Object.keys(gateways)])
    toolAnswer(expected[key]);
  const privacyFilter = JSON.stringify(toolAnswer(expected.off)).includes('@example.')
    ? 'off (addresses passed through)'
    : 'on (addresses redacted)';
  log(`every target answers; privacy filter in the gateway: ${privacyFilter}`);
  if (gatewayWorkers)
    await untilEveryWorkerServes(() => call(gatewayWorkers.url, false, sessions.workers, tokens.workers));

  const ok = (reply) => {
    if (reply.status !== 200) throw new Error(`HTTP ${reply.status}: ${reply.text.slice(0, 300)}`);
  };
  const gatewayCall = (key, id) => async () =>
    ok(await call(gateways[key].url, agents[key], sessions[key], tokens[key], id));
  log(`Redis round trips and commands: ${settings.storeCalls} sequential calls per gateway`);
  const storeSequential = {
    gatewayCacheOff: await countStore(gatewayOff.redis, gatewayCall('off')),
    gatewayCacheOn: await countStore(gatewayOn.redis, gatewayCall('on')),
    gatewayStateless: await countStore(gatewayOff.redis, async () => ok(await statelessCall())),
  };
  log(
    `per call, one at a time: cache off ${storeSequential.gatewayCacheOff.roundTrips} round trips (${storeSequential.gatewayCacheOff.commands.total} commands), cache hit ${storeSequential.gatewayCacheOn.roundTrips} (${storeSequential.gatewayCacheOn.commands.total})`,
  );

  const direct = async () => ok(await exchange(directItem, { agent: agents.direct }));
  const bareCall = async () => ok(await call(bare.url, agents.bare, sessions.bare));
  // The floor proxy in the same rounds as the gateway: the latency targets are the gateway's added latency over the floor's.
  const floorCall = async () => ok(await call(floor.url, agents.floor, sessions.floor));
  log(
    `added latency: ${settings.warmupPairs} warm-up + ${settings.pairs} rounds of direct, bare proxy, floor proxy and gateway (cache off)`,
  );
  const latency = await addedLatencies({
    direct,
    targets: { bareProxy: bareCall, floorProxy: floorCall, gatewayCacheOff: gatewayCall('off') },
    pairs: settings.pairs,
    warmup: settings.warmupPairs,
  });
  log(`added latency: cache hit, cache miss, SDK peer and floor proxy (${settings.sidePairs} pairs each)`);
  let missId = 1_000_000;
  latency.gatewayCacheHit = await addedLatency({
    direct,
    through: gatewayCall('on'),
    pairs: settings.sidePairs,
    warmup: 50,
  });
  latency.gatewayCacheMiss = await addedLatency({
    direct,
    through: async () => ok(await call(gatewayOn.url, agents.on, sessions.on, tokens.on, missId++)),
    pairs: settings.sidePairs,
    warmup: 50,
  });
  latency.sdkPeer = await addedLatency({
    direct,
    through: async () => ok(await call(peer.url, agents.peer, sessions.peer)),
    pairs: settings.sidePairs,
    warmup: 50,
  });
  latency.gatewayStateless = await addedLatency({
    direct,
    through: async () => ok(await statelessCall()),
    pairs: settings.sidePairs,
    warmup: 50,
  });
  latency.gatewayCluster = await addedLatency({
    direct,
    through: gatewayCall('cluster'),
    pairs: settings.sidePairs,
    warmup: 50,
  });
  for (const agent of Object.values(agents)) agent.destroy();

  const load = {
    connections: settings.connections,
    calls: settings.calls,
    warmupSec: settings.warmupSec,
    maxSec: settings.maxSecPerTarget,
  };
  const mcpLoad = (url, sessionId, bearer, reply) => ({
    ...load,
    url: `${url}/mcp`,
    method: 'POST',
    headers: sessionHeaders(sessionId, bearer),
    body: toolCallBody(1, UNIQUE_ID),
    uniqueIds: true,
    expectBody: reply.text,
  });
  const ours = () => processTree(process.pid);
  const cpuOf = (underTest, redisPids) =>
    cpuPerCall({
      underTest,
      ours,
      context: { downstream: () => [downstream.pid], ...(redisPids && { redis: () => redisPids }) },
    });
  const gatewayRow = (gateway, key) => [
    mcpLoad(gateway.url, sessions[key], tokens[key], expected[key]),
    // A cluster primary and its workers together; a single process is its own tree.
    {
      cpu: cpuOf(() => processTree(gateway.pid), gateway.redis.pids),
      ...(gateway.redis.port && { store: storeCostHook(gateway.redis.port, gateway.redis.probe) }),
    },
  ];
  const rows = [
    ['direct', { ...load, url: directItem, expectBody: expected.direct }, { cpu: cpuOf(() => [downstream.pid]) }],
    ['bareProxy', mcpLoad(bare.url, sessions.bare, undefined, expected.bare), { cpu: cpuOf(() => [bare.pid]) }],
    // Its own process only, as the bare proxy; its redis-server's share is context, as for the gateways.
    [
      'floorProxy',
      mcpLoad(floor.url, sessions.floor, undefined, expected.floor),
      { cpu: cpuOf(() => [floor.pid], [floor.redis.pid]) },
    ],
    [
      'floorHit',
      mcpLoad(floorHit.url, sessions.floorHit, undefined, expected.floorHit),
      { cpu: cpuOf(() => [floorHit.pid], [floorHit.redis.pid]) },
    ],
    ['sdkPeer', mcpLoad(peer.url, sessions.peer, undefined, expected.peer), { cpu: cpuOf(() => [peer.pid]) }],
    [
      'sdkV2Peer',
      {
        ...load,
        url: `${v2Peer.url}/mcp`,
        method: 'POST',
        headers: statelessHeaders(),
        body: statelessToolCallBody(1, UNIQUE_ID),
        uniqueIds: true,
        expectBody: expected.v2Peer.text,
      },
      { cpu: cpuOf(() => [v2Peer.pid]) },
    ],
    ['gatewayCacheOff', ...gatewayRow(gatewayOff, 'off')],
    ['gatewayCacheOn', ...gatewayRow(gatewayOn, 'on')],
    // The cache-off gateway again, its calls at 2026-07-28: no session read.
    [
      'gatewayStateless',
      {
        ...load,
        url: `${gatewayOff.url}/mcp`,
        method: 'POST',
        headers: statelessHeaders(tokens.off),
        body: statelessToolCallBody(1, UNIQUE_ID),
        uniqueIds: true,
        expectBody: expected.stateless.text,
      },
      { cpu: cpuOf(() => processTree(gatewayOff.pid), gatewayOff.redis.pids) },
    ],
    // The same gateway build and settings on a 3-master Redis Cluster: the masters' CPU per call summed beside it.
    ['gatewayCluster', ...gatewayRow(gatewayCluster, 'cluster')],
    ...(gatewayWorkers ? [['gatewayWorkers', ...gatewayRow(gatewayWorkers, 'workers')]] : []),
  ];
  log(
    `load: ${settings.rounds} rounds of ${rows.length} targets, ${settings.connections} connections, warm-up + ${settings.calls} calls each`,
  );
  const throughputRows = await inRounds(
    rows.map(([key, options, around]) => [
      key,
      async (round) => ({
        loadAvg1Before: round2(loadavg()[0]),
        ...(await throughput({
          ...options,
          warmupSec: round === 0 ? settings.warmupSec : settings.warmupLaterSec,
          around,
        })),
      }),
    ]),
    settings.rounds,
    (key, round, row) =>
      log(
        `  round ${round + 1} ${key}: ${row.requestsPerSec} req/s, ${row.cpu.usPerCall} µs CPU per call; other load on the machine ${row.cpu.otherBusyCores} cores`,
      ),
  );

  const memory = {
    bareProxy: await memoryOf(bare.pid),
    floorProxy: await memoryOf(floor.pid),
    floorHit: await memoryOf(floorHit.pid),
    sdkPeer: await memoryOf(peer.pid),
    sdkV2Peer: await memoryOf(v2Peer.pid),
    gatewayCacheOff: await memoryOf(gatewayOff.pid),
    gatewayCacheOn: await memoryOf(gatewayOn.pid),
    gatewayCluster: await memoryOf(gatewayCluster.pid),
  };
  if (gatewayWorkers) memory.gatewayWorkers = await clusterMemory(gatewayWorkers.pid);
  log(`idle: every process's CPU over ${settings.idleSec} s with no calls`);
  const idle = await idleCpu(
    {
      bareProxy: bare.pid,
      floorProxy: floor.pid,
      floorHit: floorHit.pid,
      sdkPeer: peer.pid,
      sdkV2Peer: v2Peer.pid,
      gatewayCacheOff: gatewayOff.pid,
      gatewayCacheOn: gatewayOn.pid,
      gatewayCluster: gatewayCluster.pid,
      ...(gatewayWorkers && { gatewayWorkers: gatewayWorkers.pid }),
    },
    settings.idleSec,
  );
  for (const [key, msPerSec] of Object.entries(idle)) memory[key].idleCpuMsPerSec = msPerSec;
  await stopAll();

  const results = {
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    machine: machineSummary(loadBefore),
    node: process.version,
    settings: {
      ...settings,
      privacyFilter,
      store:
        'redis-server (loopback), one per gateway and one per floor proxy; the cluster row on 3 masters (loopback, no replicas)',
      mode: 'production',
      pipeline:
        'auth, session, allowlist/scopes, argument validation, budget reservation, forward, privacy filter, token cap, settle, audit',
      cpu: 'utime + stime of /proc/<pid>/stat (every thread; a cluster primary and its workers summed), over the measured calls, divided by them',
      roundTrips:
        'INFO stats total_reads_processed of the gateway’s own redis-server: request batches as the server read them (a pipeline or a script = 1), the probe’s own reads subtracted',
    },
    latency,
    store: {
      sequential: storeSequential,
      underLoad: Object.fromEntries(
        Object.entries(throughputRows).flatMap(([key, row]) => (row.store ? [[key, row.store]] : [])),
      ),
    },
    throughput: throughputRows,
    memory,
  };
  // In-process and after the load, so it never competes with the timed rows.
  if (!settings.quick) {
    log('semantic cache: evaluation set and a replayed workload with the local model');
    results.semanticCache = await semanticCacheQuality();
  }
  results.verdicts = judge(results);
  results.floorLeaves = floorLeaves(results);

  if (settings.profile) results.profiles = await profileReport(results, startedAt);
  const tables = renderTables(results);
  process.stdout.write(
    `\n${tables}\n\nmachine: ${results.machine.cpus} cores (${results.machine.cpuModel}), load average before ${results.machine.loadAvgBefore.join(' ')}, after ${results.machine.loadAvgAfter.join(' ')}\n`,
  );
  await mkdir(RESULTS_DIR, { recursive: true });
  const json = `${JSON.stringify(results, null, 2)}\n`;
  const file = `${RESULTS_DIR}${args.out ?? (settings.quick ? `quick-${stamp(startedAt)}` : stamp(startedAt))}.json`;
  await writeFile(file, json);
  // latest.json is what the docs quote: only a full run replaces it.
  if (!settings.quick) await writeFile(`${RESULTS_DIR}latest.json`, json);
  log(`results written to ${file}${settings.quick ? '' : ' and bench/results/latest.json'}`);
}

/** NODE_OPTIONS of the Dockerfile's `gateway` stage (its ENV line), or '' when it sets none. */
function imageNodeOptions(dockerfile) {
  const stage = readFileSync(dockerfile, 'utf8')
    .split(/^FROM\s+/m)
    .find((body) => /^\S+\s+AS\s+gateway\s*$/im.test(body.split('\n')[0]));
  return stage?.match(/^ENV\s.*\bNODE_OPTIONS="([^"]*)"/m)?.[1] ?? '';
}

/**
 * Redis round trips and commands per tools/call over sequential calls, what
 * happens after the reply included (settle, audit): counted once the gateway
 * has had time to write it.
 */
async function countStore(redis, callOnce) {
  const before = await redisCounters(redis.port);
  for (let i = 0; i < settings.storeCalls; i++) await callOnce();
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  return storeCostPerCall(before, await redisCounters(redis.port), settings.storeCalls, redis.probe);
}

/** /mcp answers 503 until the tools are loaded from the downstream, a moment after readiness. */
async function retryUntilLoaded(open) {
  for (let attempt = 0; ; attempt++) {
    try {
      return await open();
    } catch (error) {
      if (attempt >= 50) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** Every worker of a cluster has its tools: 8 calls in a row on fresh connections (handed out round-robin) succeed. */
async function untilEveryWorkerServes(callFresh) {
  const deadline = Date.now() + 30_000;
  for (let inARow = 0; inARow < 8; ) {
    const reply = await callFresh();
    inARow = reply.status === 200 && !reply.text.includes('"isError":true') ? inARow + 1 : 0;
    if (inARow === 0) {
      if (Date.now() > deadline)
        throw new Error(`a gateway worker still does not serve: ${reply.status} ${reply.text.slice(0, 200)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** RSS of a cluster: the primary's and each worker's. */
async function clusterMemory(primaryPid) {
  const [primary, ...workers] = processTree(primaryPid);
  const rows = { primary: await memoryOf(primary), workers: await Promise.all(workers.map((pid) => memoryOf(pid))) };
  return {
    ...rows,
    rssMb: round2(rows.primary.rssMb + rows.workers.reduce((sum, worker) => sum + worker.rssMb, 0)),
    peakRssMb: null,
  };
}

/** Top self time of each gateway, restricted to its own measured load window. */
async function profileReport(results, startedAt) {
  const profiles = {};
  for (const [key, name] of [
    ['gatewayCacheOff', 'gateway-cache-off'],
    ['gatewayCacheOn', 'gateway-cache-on'],
  ]) {
    const file = `${PROFILES_DIR}${name}-${stamp(startedAt)}.cpuprofile`;
    // The first round's window: the profile runs through every round, other targets' turns included.
    const window = results.throughput[key].each[0].window;
    const summary = await summarizeProfile(file, {
      fromNs: BigInt(window.startNs),
      toNs: BigInt(window.endNs),
      top: 25,
    });
    process.stdout.write(
      `\n### ${name}: top self time during its first ${results.settings.calls} measured calls\n\n${summary.text}\n`,
    );
    profiles[key] = { file, ...summary.data };
  }
  return profiles;
}

const stamp = (date) => date.toISOString().replace(/[:.]/g, '-');
const round2 = (n) => Math.round(n * 100) / 100;

let finished = false;
const deadline = setTimeout(
  () => fail(new Error(`the benchmark did not finish within ${DEADLINE_MS / 1000} s`)),
  DEADLINE_MS,
);
deadline.unref();

async function fail(error) {
  if (finished) return;
  finished = true;
  process.stderr.write(`bench: failed: ${error instanceof Error ? error.message : String(error)}\n`);
  await stopAll();
  process.exit(1);
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, async () => {
    finished = true;
    log(`${signal}: stopping every process`);
    await stopAll();
    process.exit(130);
  });
}

main().then(() => {
  finished = true;
  clearTimeout(deadline);
}, fail);
