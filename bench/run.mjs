// `pnpm bench`: the gateway's cost, measured against the bare downstream and
// against a hand-written SDK proxy, in one run on this machine.
//
//   node bench/run.mjs [--profile] [--duration 10] [--pairs 2000] [--connections 32]
//
// Starts a real redis-server, the echo downstream, two BUILT gateways on that
// Redis (cache off / cache on; production mode, LOG_LEVEL=warn, auth + budget
// + privacy + cap + audit on every call) and the SDK peer, all on loopback.
// Prints Markdown tables and writes bench/results/<timestamp>.json and latest.json.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, loadavg, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startRedisServer } from '@tollgate/gateway-core/testing';
import { addedLatency } from './lib/latency.mjs';
import { throughput, UNIQUE_ID } from './lib/load.mjs';
import { exchange, keepAliveAgent, openSession, sessionHeaders, toolAnswer, toolCallBody } from './lib/mcp.mjs';
import { commandCounts, perCall } from './lib/redis-stats.mjs';
import { answers, freePort, listeningLine, memoryOf, onStop, startNode, stopAll } from './lib/processes.mjs';
import { judge, renderTables } from './lib/report.mjs';
import { semanticCacheQuality } from './lib/semantic-cache.mjs';
import { summarizeProfile } from './profile-summary.mjs';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const GATEWAY_MAIN = here('../apps/gateway/dist/main.js');
/** The gateway runs as its image runs it: with the NODE_OPTIONS (V8 heap limits) the Dockerfile sets. */
const GATEWAY_NODE_OPTIONS = imageNodeOptions(here('../Dockerfile'));
const RESULTS_DIR = here('./results/');
const PROFILES_DIR = here('./results/profiles/');
/** The whole run must end within this, whatever hangs. */
const DEADLINE_MS = 5 * 60_000;

const { values: args } = parseArgs({
  options: {
    profile: { type: 'boolean', default: false },
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2' },
    pairs: { type: 'string', default: '2000' },
    connections: { type: 'string', default: '32' },
  },
});
const settings = {
  connections: Number(args.connections),
  durationSec: Number(args.duration),
  warmupSec: Number(args.warmup),
  pairs: Number(args.pairs),
  warmupPairs: 200,
  // The cache hit/miss and SDK-peer latency rows are context, not targets: fewer pairs keep the run short.
  sidePairs: Math.max(200, Math.round(Number(args.pairs) / 2)),
  profile: args.profile,
  logLevel: 'warn',
  gatewayNodeOptions: GATEWAY_NODE_OPTIONS,
};

const log = (line) => process.stderr.write(`bench: ${line}\n`);

async function main() {
  if (!existsSync(GATEWAY_MAIN)) throw new Error(`${GATEWAY_MAIN} is missing: run the build first (pnpm bench does)`);
  const startedAt = new Date();
  const loadBefore = loadavg();

  log('starting redis-server, the echo downstream, two gateways and the SDK peer');
  const redis = await startRedisServer();
  onStop(() => redis.stop());
  const downstream = await startNode('echo downstream', [here('./echo-downstream.mjs')], { env: { PORT: '0' }, ready: listeningLine });
  const signingKey = randomBytes(32).toString('hex');
  const adminKey = randomBytes(32).toString('hex');
  const gatewayAt = async (name, cacheEnabled) => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const nodeFlags = settings.profile ? ['--cpu-prof', `--cpu-prof-dir=${PROFILES_DIR}`, `--cpu-prof-name=${name}-${stamp(startedAt)}.cpuprofile`] : [];
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
      Gw__Cache__Enabled: String(cacheEnabled),
    };
    // Ready = store answers and the embedding model is loaded (contract 2.6).
    return startNode(name, [...nodeFlags, GATEWAY_MAIN], { env, ready: answers(url, '/health/ready'), timeoutMs: 90_000 });
  };
  const [gatewayOff, gatewayOn, peer] = await Promise.all([
    gatewayAt('gateway-cache-off', false),
    gatewayAt('gateway-cache-on', true),
    startNode('sdk peer', [here('./sdk-peer.mjs')], { env: { PORT: '0', DOWNSTREAM_URL: downstream.url }, ready: listeningLine }),
  ]);

  const token = await agentToken(gatewayOff.url, adminKey);
  const agents = { direct: keepAliveAgent(), off: keepAliveAgent(), on: keepAliveAgent(), peer: keepAliveAgent() };
  const sessions = {
    off: await retryUntilLoaded(() => openSession(gatewayOff.url, token, agents.off)),
    on: await retryUntilLoaded(() => openSession(gatewayOn.url, token, agents.on)),
    peer: await openSession(peer.url, undefined, agents.peer),
  };

  // One call each, checked in full before anything is timed.
  const directItem = `${downstream.url}/items/1`;
  const call = (target, agent, sessionId, bearer, id = 1, rpcId = 1) =>
    exchange(`${target}/mcp`, { method: 'POST', agent, headers: sessionHeaders(sessionId, bearer), body: toolCallBody(id, rpcId) });
  const expected = {
    direct: (await exchange(directItem, { agent: agents.direct })).text,
    // The reply autocannon must get, with its unique JSON-RPC id put back to the placeholder.
    off: await call(gatewayOff.url, agents.off, sessions.off, token, 1, UNIQUE_ID),
    on: await call(gatewayOn.url, agents.on, sessions.on, token, 1, UNIQUE_ID),
    peer: await call(peer.url, agents.peer, sessions.peer, undefined, 1, UNIQUE_ID),
  };
  const answer = toolAnswer(expected.off);
  toolAnswer(expected.on);
  toolAnswer(expected.peer);
  const privacyFilter = JSON.stringify(answer).includes('@example.') ? 'off (addresses passed through)' : 'on (addresses redacted)';
  log(`every target answers; privacy filter in the gateway: ${privacyFilter}`);

  const ok = (reply) => {
    if (reply.status !== 200) throw new Error(`HTTP ${reply.status}: ${reply.text.slice(0, 300)}`);
  };
  const storeCommands = {
    gatewayCacheOff: await countStoreCommands(redis.port, async () => ok(await call(gatewayOff.url, agents.off, sessions.off, token))),
    gatewayCacheOn: await countStoreCommands(redis.port, async () => ok(await call(gatewayOn.url, agents.on, sessions.on, token))),
  };
  log(`store commands per call: cache off ${storeCommands.gatewayCacheOff.total}, cache on (hit) ${storeCommands.gatewayCacheOn.total}`);
  const direct = async () => ok(await exchange(directItem, { agent: agents.direct }));
  let missId = 1_000_000;
  log(`added latency: ${settings.warmupPairs} warm-up + ${settings.pairs} pairs direct vs gateway (cache off)`);
  const latency = {
    gatewayCacheOff: await addedLatency({ direct, through: async () => ok(await call(gatewayOff.url, agents.off, sessions.off, token)), pairs: settings.pairs, warmup: settings.warmupPairs }),
  };
  log(`added latency: cache hit, cache miss and SDK peer (${settings.sidePairs} pairs each)`);
  latency.gatewayCacheHit = await addedLatency({ direct, through: async () => ok(await call(gatewayOn.url, agents.on, sessions.on, token)), pairs: settings.sidePairs, warmup: 50 });
  latency.gatewayCacheMiss = await addedLatency({ direct, through: async () => ok(await call(gatewayOn.url, agents.on, sessions.on, token, missId++)), pairs: settings.sidePairs, warmup: 50 });
  latency.sdkPeer = await addedLatency({ direct, through: async () => ok(await call(peer.url, agents.peer, sessions.peer)), pairs: settings.sidePairs, warmup: 50 });
  for (const agent of Object.values(agents)) agent.destroy();

  const load = { connections: settings.connections, durationSec: settings.durationSec, warmupSec: settings.warmupSec };
  const mcpLoad = (url, sessionId, bearer, reply) => ({ ...load, url: `${url}/mcp`, method: 'POST', headers: sessionHeaders(sessionId, bearer), body: toolCallBody(1, UNIQUE_ID), uniqueIds: true, expectBody: reply.text });
  const rows = [
    ['direct', { ...load, url: directItem, expectBody: expected.direct }],
    ['gatewayCacheOff', mcpLoad(gatewayOff.url, sessions.off, token, expected.off)],
    ['gatewayCacheOn', mcpLoad(gatewayOn.url, sessions.on, token, expected.on)],
    ['sdkPeer', mcpLoad(peer.url, sessions.peer, undefined, expected.peer)],
  ];
  const throughputRows = {};
  // Under load the settles and audit records of many calls share scripts and round trips.
  const storeCommandsUnderLoad = {};
  const countingCommands = (key) => {
    let before;
    return {
      before: async () => (before = await commandCounts(redis.port)),
      after: async (calls) => (storeCommandsUnderLoad[key] = perCall(before, await commandCounts(redis.port), calls)),
    };
  };
  for (const [key, options] of rows) {
    log(`throughput: ${key}, ${settings.connections} connections, ${settings.warmupSec} s warm-up + ${settings.durationSec} s`);
    throughputRows[key] = await throughput({ ...options, around: key in storeCommands ? countingCommands(key) : undefined });
  }

  const memory = {
    gatewayCacheOff: await memoryOf(gatewayOff.pid),
    gatewayCacheOn: await memoryOf(gatewayOn.pid),
    sdkPeer: await memoryOf(peer.pid),
  };
  await stopAll();

  const results = {
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? null, memoryGb: Math.round(totalmem() / 2 ** 30), loadAvgBefore: loadBefore.map(round2), loadAvgAfter: loadavg().map(round2) },
    node: process.version,
    settings: { ...settings, privacyFilter, store: 'redis-server (loopback)', mode: 'production', pipeline: 'auth, session, allowlist/scopes, argument validation, budget reservation, forward, privacy filter, token cap, settle, audit' },
    latency,
    storeCommands,
    storeCommandsUnderLoad,
    throughput: throughputRows,
    memory,
  };
  // In-process and after the load, so it never competes with the timed rows.
  log('semantic cache: evaluation set and a replayed workload with the local model');
  results.semanticCache = await semanticCacheQuality();
  results.verdicts = judge(results);

  if (settings.profile) results.profiles = await profileReport(results, startedAt);
  const tables = renderTables(results);
  process.stdout.write(`\n${tables}\n\nmachine: ${results.machine.cpus} cores (${results.machine.cpuModel}), load average before ${results.machine.loadAvgBefore.join(' ')}, after ${results.machine.loadAvgAfter.join(' ')}\n`);
  await mkdir(RESULTS_DIR, { recursive: true });
  const json = `${JSON.stringify(results, null, 2)}\n`;
  const file = `${RESULTS_DIR}${stamp(startedAt)}.json`;
  await writeFile(file, json);
  await writeFile(`${RESULTS_DIR}latest.json`, json);
  log(`results written to ${file} and bench/results/latest.json`);
}

/** NODE_OPTIONS of the Dockerfile's `gateway` stage (its ENV line), or '' when it sets none. */
function imageNodeOptions(dockerfile) {
  const stage = readFileSync(dockerfile, 'utf8').split(/^FROM\s+/m).find((body) => /^\S+\s+AS\s+gateway\s*$/im.test(body.split('\n')[0]));
  return stage?.match(/^ENV\s.*\bNODE_OPTIONS="([^"]*)"/m)?.[1] ?? '';
}

/** Admin token from the API key, one agent with a budget no run can spend, its token. */
async function agentToken(gatewayUrl, adminKey) {
  const post = async (path, bearer, body) => {
    const response = await fetch(`${gatewayUrl}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...(bearer ? { Authorization: `Bearer ${bearer}` } : {}) },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`POST ${path}: ${response.status} ${await response.text()}`);
    return response.json();
  };
  const admin = (await post('/auth/admin/token', null, { apiKey: adminKey })).token;
  const { agentId } = await post('/management/agents', admin, { label: 'bench', dailyTokenBudget: 1_000_000_000_000 });
  return (await post(`/management/agents/${agentId}/token`, admin, {})).token;
}

/** Redis commands per tools/call over 200 sequential calls, audit writes (batched, asynchronous) included. */
async function countStoreCommands(port, callOnce, calls = 200) {
  const before = await commandCounts(port);
  for (let i = 0; i < calls; i++) await callOnce();
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  return perCall(before, await commandCounts(port), calls);
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

/** Top self time of each gateway, restricted to its own measured load window. */
async function profileReport(results, startedAt) {
  const profiles = {};
  for (const [key, name] of [['gatewayCacheOff', 'gateway-cache-off'], ['gatewayCacheOn', 'gateway-cache-on']]) {
    const file = `${PROFILES_DIR}${name}-${stamp(startedAt)}.cpuprofile`;
    const window = results.throughput[key].window;
    const summary = await summarizeProfile(file, { fromNs: BigInt(window.startNs), toNs: BigInt(window.endNs), top: 25 });
    process.stdout.write(`\n### ${name}: top self time during its ${results.settings.durationSec} s load\n\n${summary.text}\n`);
    profiles[key] = { file, ...summary.data };
  }
  return profiles;
}

const stamp = (date) => date.toISOString().replace(/[:.]/g, '-');
const round2 = (n) => Math.round(n * 100) / 100;

let finished = false;
const deadline = setTimeout(() => fail(new Error(`the benchmark did not finish within ${DEADLINE_MS / 1000} s`)), DEADLINE_MS);
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

main().then(
  () => {
    finished = true;
    clearTimeout(deadline);
  },
  fail,
);
