// What one Redis shard (one redis-server, or one master of a cluster) can
// carry: Redis's own CPU time per tools/call, for the store operations one
// call makes, through the real store adapter. Feeds the capacity model in the
// docs/operations/capacity.md.
//
//   node bench/redis-shard.mjs [--seconds 4] [--batch 14] [--agents 1000] [--all-rows]
//
// Starts a redis-server of its own (needs the built @tollgate/gateway-core),
// then drives it from store instances (a gateway instance holds one
// connection per master) in two ways: 64 connections with one call each in
// flight, so no two calls share a round trip (the most a call can cost
// Redis: every command batch of it is a read and a write of its own), and 8
// connections with 16 calls each in flight, whose commands node-redis
// writes together (a busy gateway instance batches like this). A call is
// what the hot path asks of the store: the agent record, its revocation
// generation and the session in one round trip, the rate-limit bucket and the
// budget reservation, the settlement after the reply, and one audit record
// (written `batch` at a time, as the audit trail batches them under load).
// Each store operation is also run alone (on the cluster only with
// --all-rows). Then the whole call on a cluster of 3 masters, with how its
// cost spreads over them. Redis's main-thread CPU time
// (INFO cpu, microseconds) over the calls made gives the CPU per call; Redis
// runs commands on that one thread, so 1 s / (CPU per call) is the most calls
// per second one shard can take. Also runs redis-benchmark (GET, no
// pipelining and 16 deep) for scale, when it is installed.
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { parseArgs } from 'node:util';
import { createStore } from '@tollgate/gateway-core/store';
import { startRedisCluster, startRedisServer } from '@tollgate/gateway-core/testing';

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '4' },
    batch: { type: 'string', default: '14' },
    agents: { type: 'string', default: '1000' },
    'all-rows': { type: 'boolean', default: false },
  },
});
const SECONDS = Number(args.seconds);
const PROFILES = [
  { name: 'one call per round trip', connections: 64, inflight: 1 },
  { name: 'calls batched', connections: 8, inflight: 16 },
];
const BATCH = Number(args.batch);
const AGENTS = Number(args.agents);

const agentIds = Array.from({ length: AGENTS }, (_, i) => `agt_bench_${i}`);
const limit = { callsPerMinute: 60_000, burst: 100 };
let stores = [];
let inflight = 1;
/** The ports whose counters are read: the server, or every master of the cluster. */
let ports = [];

const report = { server: {}, cluster: {} };
const server = await startRedisServer();
let benchmark;
try {
  report.server = await measureTarget(server.url, [server.port], () => true);
  benchmark = redisBenchmark(server.port);
} finally {
  await server.stop();
}
// The same calls on a cluster of 3 masters: the whole call only, and how its cost spreads over the masters.
const cluster = await startRedisCluster();
try {
  report.cluster = await measureTarget(
    cluster.url,
    cluster.nodes.map((node) => node.port),
    (operation) => args['all-rows'] || operation === 'whole call',
  );
} finally {
  await cluster.stop();
}
print(report, benchmark);

async function measureTarget(url, targetPorts, wanted) {
  ports = targetPorts;
  const prefix = `bench:${randomUUID()}:`;
  const results = {};
  try {
    stores = [await createStore(url, { keyPrefix: prefix })];
    await setUp(stores[0]);
    for (const profile of PROFILES) {
      await Promise.all(stores.map((store) => store.close()));
      stores = await Promise.all(
        Array.from({ length: profile.connections }, () => createStore(url, { keyPrefix: prefix })),
      );
      inflight = profile.inflight;
      const rows = {};
      for (const [name, operation] of Object.entries(operations()))
        if (wanted(name)) rows[name] = await measure(operation);
      results[profile.name] = { ...profile, rows };
    }
  } finally {
    await Promise.all(stores.map((store) => store.close()));
    stores = [];
  }
  return results;
}

function operations() {
  return {
    'agent + generation + session (one round trip)': (store, agentId) =>
      Promise.all([
        store.agents.get(agentId),
        store.revocation.generation(agentId),
        store.sessions.touch(`sess_${agentId}`, 600_000),
      ]),
    ...(stores[0].rateLimits
      ? { 'rate-limit take': (store, agentId) => store.rateLimits.take(agentId, limit, new Date()) }
      : {}),
    'budget reserve + settle': async (store, agentId) => {
      const reserved = await store.budget.reserve(agentId, 1e12, 100, new Date());
      if (reserved.ok) await store.budget.settle(reserved.reservation, 40);
    },
    [`audit record (in batches of ${BATCH})`]: auditWriter(),
    'whole call': wholeCall(),
  };
}

async function setUp(store) {
  for (const agentId of agentIds) {
    await store.agents.create({
      agentId,
      label: agentId,
      dailyTokenBudget: 1e12,
      isActive: true,
      allowedTools: null,
      scopes: ['read'],
      externalSubjects: [],
      rateLimit: null,
      createdAt: new Date().toISOString(),
      updatedAt: new Date().toISOString(),
    });
    await store.sessions.create(
      {
        sessionId: `sess_${agentId}`,
        agentId,
        protocolVersion: '2025-06-18',
        clientInfo: { name: 'bench', version: '1' },
        createdAt: new Date().toISOString(),
      },
      600_000,
      100,
    );
  }
}

function auditEntry(agentId) {
  return {
    time: new Date().toISOString(),
    kind: 'tool-call',
    agentId,
    sessionId: `sess_${agentId}`,
    tool: 'search_products',
    outcome: 'ok',
    httpStatus: 200,
    jsonRpcCode: null,
    tokensCharged: 40,
    gatewayMs: 0.7,
    downstreamMs: 1.2,
    cacheTier: null,
    downstreamStatus: 200,
    argsDigest: 'a'.repeat(64),
    actor: null,
    requestId: randomUUID(),
    detail: null,
  };
}

/** One audit record per call, appended `BATCH` at a time per store (as the trail does under load). */
function auditWriter() {
  const pending = new Map();
  return async (store, agentId) => {
    const batch = pending.get(store) ?? [];
    pending.set(store, batch);
    batch.push(auditEntry(agentId));
    if (batch.length >= BATCH) await store.audit.append(batch.splice(0));
  };
}

function wholeCall() {
  const audit = auditWriter();
  return async (store, agentId) => {
    await Promise.all([
      store.agents.get(agentId),
      store.revocation.generation(agentId),
      store.sessions.touch(`sess_${agentId}`, 600_000),
    ]);
    const [, reserved] = await Promise.all([
      store.rateLimits?.take(agentId, limit, new Date()),
      store.budget.reserve(agentId, 1e12, 100, new Date()),
    ]);
    if (reserved.ok) await store.budget.settle(reserved.reservation, 40);
    await audit(store, agentId);
  };
}

/** Runs the operation for SECONDS from every store, `inflight` at a time each; Redis's counters before and after. */
async function measure(operation) {
  // Warm-up: scripts loaded, connections busy.
  await drive(operation, 0.5);
  const before = await Promise.all(ports.map(counters));
  const started = performance.now();
  const clientCpu = process.cpuUsage();
  const calls = await drive(operation, SECONDS);
  const clientCpuUs = Object.values(process.cpuUsage(clientCpu)).reduce((a, b) => a + b, 0);
  const wallSec = (performance.now() - started) / 1000;
  const after = await Promise.all(ports.map(counters));
  const delta = (field) => after.map((a, i) => a[field] - before[i][field]);
  const cpuUs = delta('mainCpuSec').map((sec) => sec * 1e6);
  const totalCpuUs = cpuUs.reduce((a, b) => a + b, 0);
  const sum = (values) => values.reduce((a, b) => a + b, 0);
  return {
    calls,
    callsPerSec: Math.round(calls / wallSec),
    redisCpuUsPerCall: round(totalCpuUs / calls, 2),
    redisBusy: round(Math.max(...cpuUs) / 1e6 / wallSec, 2),
    commandsPerCall: round(sum(delta('commands')) / calls, 2),
    readsPerCall: round(sum(delta('reads')) / calls, 2),
    // Each server runs its commands on one thread: the busiest one decides.
    shardCapacityCallsPerSec: Math.round(1e6 / (Math.max(...cpuUs) / calls)),
    cpuShareByServer: cpuUs.map((us) => round(us / totalCpuUs, 2)),
    // The driving process: the store adapter and node-redis, as a gateway pays for them (plus this loop).
    clientCpuUsPerCall: round(clientCpuUs / calls, 2),
  };
}

async function drive(operation, seconds) {
  const deadline = performance.now() + seconds * 1000;
  let calls = 0;
  let next = 0;
  const worker = async (store) => {
    while (performance.now() < deadline) {
      await operation(store, agentIds[next++ % agentIds.length]);
      calls += 1;
    }
  };
  await Promise.all(stores.flatMap((store) => Array.from({ length: inflight }, () => worker(store))));
  return calls;
}

async function counters(port) {
  const text = await info(port, ['cpu', 'stats', 'commandstats']);
  const stat = (name) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(text)?.[1] ?? NaN);
  let commands = 0;
  for (const match of text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm))
    if (match[1] !== 'info') commands += Number(match[2]);
  return {
    mainCpuSec: stat('used_cpu_user_main_thread') + stat('used_cpu_sys_main_thread'),
    reads: stat('total_reads_processed'),
    commands,
  };
}

function info(port, sections) {
  const parts = ['INFO', ...sections];
  const command = `*${parts.length}\r\n${parts.map((part) => `$${Buffer.byteLength(part)}\r\n${part}\r\n`).join('')}`;
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    let data = '';
    socket.on('error', reject);
    socket.on('connect', () => socket.write(command));
    socket.on('data', (chunk) => {
      data += chunk;
      const header = /^\$(\d+)\r\n/.exec(data);
      if (header && Buffer.byteLength(data) >= header[0].length + Number(header[1])) {
        socket.end();
        resolve(data.slice(header[0].length));
      }
    });
  });
}

/** redis-benchmark's GET, one command per round trip and 16 deep, for scale. */
function redisBenchmark(port) {
  const run = (pipeline) => {
    const result = spawnSync(
      'redis-benchmark',
      ['-p', String(port), '-t', 'get', '-n', '200000', '-c', '50', '-P', String(pipeline), '-q', '--csv'],
      { encoding: 'utf8' },
    );
    if (result.status !== 0) return null;
    const row = result.stdout.split('\n').find((line) => line.startsWith('"GET"'));
    return row ? Math.round(Number(row.split(',')[1].replaceAll('"', ''))) : null;
  };
  return { getPerSec: run(1), getPerSecPipelined16: run(16) };
}

function round(value, digits) {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

function print(report, benchmark) {
  for (const [target, profiles] of Object.entries({
    'one redis-server': report.server,
    'a cluster of 3 masters': report.cluster,
  })) {
    for (const { name, connections, inflight: each, rows } of Object.values(profiles)) {
      console.log(
        `\n${target}, ${name}: ${connections} connections × ${each} in flight, ${SECONDS} s per row, ${AGENTS} agents\n`,
      );
      console.log(
        '| store operations | calls/s driven | busiest server | Redis CPU per call (all servers) | CPU share by server | commands per call | reads per call | calls/s at 100 % of the busiest server | client CPU per call |',
      );
      console.log('| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: |');
      for (const [operation, r] of Object.entries(rows)) {
        console.log(
          `| ${operation} | ${r.callsPerSec} | ${Math.round(r.redisBusy * 100)} % | ${r.redisCpuUsPerCall} µs | ${r.cpuShareByServer.join(' / ')} | ${r.commandsPerCall} | ${r.readsPerCall} | ${r.shardCapacityCallsPerSec} | ${r.clientCpuUsPerCall} µs |`,
        );
      }
    }
  }
  if (benchmark?.getPerSec)
    console.log(
      `\nredis-benchmark GET (50 clients): ${benchmark.getPerSec}/s one per round trip, ${benchmark.getPerSecPipelined16}/s 16 deep`,
    );
  console.log(
    JSON.stringify({ settings: { seconds: SECONDS, batch: BATCH, agents: AGENTS }, report, benchmark }, null, 2),
  );
}
