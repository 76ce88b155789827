// A short A/B run for working on the gateway's CPU cost: only the rows that
// judge it (bare proxy, gateway cache off, optionally cache hits), and
// optionally the same rows for a second build of the gateway, interleaved in
// the same rounds so both builds see the same neighbours on a shared machine.
//
//   node bench/quick.mjs [--calls 3000] [--rounds 3] [--connections 16] [--hits] [--baseline <dir>] [--current <dir>] [--env Gw__X=y] [--profile]
//
// --baseline names a copy of the repo's built output (a directory holding
// apps/gateway/dist/main.js, as `node bench/quick.mjs --snapshot <dir>` makes
// it): its gateway runs beside the current build, same settings, own Redis.
// --current runs such a copy instead of the checkout's build (which others
// working in the same tree may rebuild under a long run).
// --profile writes a .cpuprofile of each gateway (bench/results/profiles/)
// and prints the top self time of its last (warmest) measured round.
// --concurrent <seconds> (with --baseline) loads each gateway row of both builds at
// the same time for that long, round after round: the fairest A/B on a busy machine.
// --node-flag passes a flag to each gateway's node (--trace-deopt, say);
// --output-dir keeps what each gateway prints after start-up in <name>.log.
// --floor adds the floor proxy (floor-proxy.mjs): the bare proxy plus only the
// work the issue's target itself puts on every call.
// Not a substitute for `pnpm bench`: no latency pairs, no SDK peer, no RSS target.
import { randomBytes } from 'node:crypto';
import {
  cpSync,
  createWriteStream,
  existsSync,
  writeFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  lstatSync,
  readlinkSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startRedisServer } from '@tollgate/gateway-core/testing';
import { cpuPerCall, processTree, syscallsPerCall, threadsPerCall } from './lib/cpu.mjs';
import { startFloorProxy } from './lib/floor.mjs';
import { throughput, UNIQUE_ID } from './lib/load.mjs';
import { inRounds } from './lib/rounds.mjs';
import {
  agentToken,
  exchange,
  keepAliveAgent,
  openSession,
  sessionHeaders,
  toolAnswer,
  toolCallBody,
} from './lib/mcp.mjs';
import { answers, freePort, listeningLine, memoryOf, onStop, startNode, stopAll } from './lib/processes.mjs';
import { summarizeProfile } from './profile-summary.mjs';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const ROOT = here('..');
const PROFILES_DIR = here('./results/profiles/');

const { values: args } = parseArgs({
  options: {
    calls: { type: 'string', default: '3000' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '16' },
    warmup: { type: 'string', default: '2' },
    hits: { type: 'boolean', default: false },
    floor: { type: 'boolean', default: false },
    baseline: { type: 'string' },
    current: { type: 'string' },
    snapshot: { type: 'string' },
    profile: { type: 'boolean', default: false },
    env: { type: 'string', multiple: true, default: [] },
    'node-flag': { type: 'string', multiple: true, default: [] },
    concurrent: { type: 'string' },
    'output-dir': { type: 'string' },
  },
});
const log = (line) => process.stderr.write(`quick: ${line}\n`);

/**
 * Copies the built gateway and core (dist only) to `dir`, linked to this
 * checkout's node_modules, so a later build can be compared with this one.
 */
function snapshot(dir) {
  rmSync(dir, { recursive: true, force: true });
  for (const pkg of ['apps/gateway', 'packages/gateway-core']) {
    const from = join(ROOT, pkg);
    const to = join(dir, pkg);
    mkdirSync(to, { recursive: true });
    cpSync(join(from, 'dist'), join(to, 'dist'), { recursive: true });
    cpSync(join(from, 'package.json'), join(to, 'package.json'));
    mkdirSync(join(to, 'node_modules'), { recursive: true });
    linkModules(join(from, 'node_modules'), join(to, 'node_modules'), dir);
  }
  log(`snapshot of the current build in ${dir}`);
}

/** Each entry of a package's node_modules, linked; the workspace's own gateway-core points at the snapshot's. */
function linkModules(from, to, dir) {
  for (const name of readdirSync(from)) {
    const source = join(from, name);
    if (name.startsWith('@') && lstatSync(source).isDirectory() && !lstatSync(source).isSymbolicLink()) {
      mkdirSync(join(to, name), { recursive: true });
      linkModules(source, join(to, name), dir);
      continue;
    }
    const own = source.endsWith('@tollgate/gateway-core');
    symlinkSync(
      own
        ? join(dir, 'packages/gateway-core')
        : resolve(from, lstatSync(source).isSymbolicLink() ? readlinkSync(source) : name),
      join(to, name),
    );
  }
}

if (args.snapshot) {
  snapshot(resolve(args.snapshot));
  process.exit(0);
}

const settings = {
  calls: Number(args.calls),
  rounds: Number(args.rounds),
  connections: Number(args.connections),
  warmupSec: Number(args.warmup),
};
const nodeOptions = /ENV\s.*\bNODE_OPTIONS="([^"]*)"/.exec(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'))?.[1] ?? '';
const extraEnv = Object.fromEntries(args.env.map((pair) => pair.split(/=(.*)/s).slice(0, 2)));

async function main() {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const downstream = await startNode('echo downstream', [here('./echo-downstream.mjs')], {
    env: { PORT: '0' },
    ready: listeningLine,
  });
  const bareFlags = args.profile
    ? ['--cpu-prof', `--cpu-prof-dir=${PROFILES_DIR}`, `--cpu-prof-name=quick-bare-${stamp}.cpuprofile`]
    : [];
  const bare = await startNode('bare proxy', [...bareFlags, here('./bare-proxy.mjs')], {
    env: { PORT: '0', DOWNSTREAM_URL: downstream.url },
    ready: listeningLine,
  });
  const signingKey = randomBytes(32).toString('hex');
  const adminKey = randomBytes(32).toString('hex');
  const builds = { current: join(args.current ? resolve(args.current) : ROOT, 'apps/gateway/dist/main.js') };
  if (args.baseline) builds.baseline = join(resolve(args.baseline), 'apps/gateway/dist/main.js');
  for (const main of Object.values(builds)) if (!existsSync(main)) throw new Error(`${main} is missing`);

  const gatewayAt = async (name, main, cache) => {
    const redis = await startRedisServer();
    onStop(() => redis.stop());
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    if (args.profile) mkdirSync(PROFILES_DIR, { recursive: true });
    const flags = args.profile
      ? ['--cpu-prof', `--cpu-prof-dir=${PROFILES_DIR}`, `--cpu-prof-name=quick-${name}-${stamp}.cpuprofile`]
      : [];
    const env = {
      NODE_OPTIONS: nodeOptions,
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      PORT: String(port),
      HOST: '127.0.0.1',
      Gw__LicenseKey: 'bench-license',
      Gw__Jwt__SigningKey: signingKey,
      Gw__Admin__ApiKey: adminKey,
      Gw__ToolRegistry__DownstreamBaseUrl: downstream.url,
      ConnectionStrings__Store: redis.url,
      Gw__Cache__Enabled: String(cache),
      ...extraEnv,
    };
    const gateway = await startNode(name, [...flags, ...args['node-flag'], main], {
      env,
      ready: answers(url, '/health/ready'),
      timeoutMs: 90_000,
    });
    if (args['output-dir']) {
      // Everything the gateway prints from here on (V8 traces asked for with --node-flag, say).
      const out = createWriteStream(join(resolve(args['output-dir']), `${name}.log`));
      gateway.child.stdout.pipe(out);
      gateway.child.stderr.pipe(out);
    }
    log(`${name}: pid ${gateway.pid} on ${url}`);
    return { ...gateway, name };
  };

  const targets = [];
  for (const [build, main] of Object.entries(builds)) {
    targets.push([`${build} cache off`, await gatewayAt(`${build}-off`, main, false)]);
    if (args.hits) targets.push([`${build} cache hit`, await gatewayAt(`${build}-on`, main, true)]);
  }

  const rows = [];
  const bareSession = await openSession(bare.url, undefined, keepAliveAgent());
  const bareReply = await exchange(`${bare.url}/mcp`, {
    method: 'POST',
    headers: sessionHeaders(bareSession),
    body: toolCallBody(1, UNIQUE_ID),
  });
  toolAnswer(bareReply);
  const load = { connections: settings.connections, calls: settings.calls, maxSec: 90 };
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
  const cpuOf = (pids) => ({
    cpu: cpuPerCall({ underTest: pids, ours }),
    syscalls: syscallsPerCall(pids),
    threads: threadsPerCall(pids),
  });
  rows.push(['bare proxy', mcpLoad(bare.url, bareSession, undefined, bareReply), cpuOf(() => [bare.pid])]);
  let floorPid;
  if (args.floor) {
    const floor = await startFloorProxy('floor proxy', downstream.url, { steps: process.env.FLOOR_STEPS });
    const session = await openSession(floor.url, undefined, keepAliveAgent());
    const reply = await exchange(`${floor.url}/mcp`, {
      method: 'POST',
      headers: sessionHeaders(session),
      body: toolCallBody(1, UNIQUE_ID),
    });
    toolAnswer(reply);
    rows.push(['floor proxy', mcpLoad(floor.url, session, undefined, reply), cpuOf(() => [floor.pid])]);
    floorPid = floor.pid;
  }
  for (const [key, gateway] of targets) {
    const token = await agentToken(gateway.url, adminKey);
    const session = await retryUntilLoaded(() => openSession(gateway.url, token, keepAliveAgent()));
    const reply = await exchange(`${gateway.url}/mcp`, {
      method: 'POST',
      headers: sessionHeaders(session, token),
      body: toolCallBody(1, UNIQUE_ID),
    });
    toolAnswer(reply);
    rows.push([key, mcpLoad(gateway.url, session, token, reply), cpuOf(() => [gateway.pid])]);
  }

  const logRound = (key, round, row) =>
    log(
      `  round ${round + 1} ${key}: ${row.cpu.usPerCall} µs/call (main thread ${row.threads.mainUser} user + ${row.threads.mainSystem} system, other threads ${row.threads.other}), ${row.syscalls.reads}+${row.syscalls.writes} read+write syscalls/call (${row.syscalls.bytesOut} B out), ${row.requestsPerSec} req/s, other load ${row.cpu.otherBusyCores} cores${row.mismatches || row.errors ? `, PROBLEMS ${JSON.stringify(row.problemSamples)}` : ''}`,
    );
  let results;
  if (args.concurrent && args.baseline) {
    // Each build's row under load at the same time as the other build's, for a fixed time: both see the same
    // neighbours, moment by moment, which sequential rounds on a busy machine cannot promise.
    const seconds = Number(args.concurrent);
    log(
      `${settings.rounds} rounds: the bare proxy alone, then each gateway row of both builds at once, ${seconds} s each, ${settings.connections} connections each`,
    );
    const byKey = Object.fromEntries(rows.map((row) => [row[0], row]));
    const units = [
      ['bare proxy'],
      ...(floorPid ? [['floor proxy']] : []),
      ...targets
        .filter(([key]) => key.startsWith('current '))
        .map(([key]) => [key, key.replace(/^current /, 'baseline ')]),
    ];
    const measured = Object.fromEntries(rows.map(([key]) => [key, []]));
    for (let round = 0; round < settings.rounds; round++) {
      for (let i = 0; i < units.length; i++) {
        const unit = units[(round + i) % units.length];
        const timed = unit.length > 1;
        const rowsNow = await Promise.all(
          unit.map((key) => {
            const [, options, around] = byKey[key];
            return throughput({
              ...options,
              ...(timed && { calls: 1e9, maxSec: seconds }),
              warmupSec: round === 0 ? settings.warmupSec : 0.5,
              around,
            });
          }),
        );
        unit.forEach((key, k) => (measured[key].push(rowsNow[k]), logRound(key, round, rowsNow[k])));
      }
    }
    const pick = (rounds, read) => median(rounds.map(read));
    results = Object.fromEntries(
      Object.entries(measured).map(([key, each]) => [
        key,
        {
          each,
          cpu: { usPerCall: pick(each, (row) => row.cpu.usPerCall) },
          requestsPerSec: pick(each, (row) => row.requestsPerSec),
          mismatches: each.reduce((n, row) => n + row.mismatches, 0),
          errors: each.reduce((n, row) => n + row.errors, 0),
          non2xx: each.reduce((n, row) => n + row.non2xx, 0),
        },
      ]),
    );
  } else {
    log(
      `${settings.rounds} rounds of ${rows.length} targets, ${settings.connections} connections, ${settings.calls} calls each`,
    );
    results = await inRounds(
      rows.map(([key, options, around]) => [
        key,
        (round) => throughput({ ...options, warmupSec: round === 0 ? settings.warmupSec : 0.5, around }),
      ]),
      settings.rounds,
      logRound,
    );
  }
  const bareUs = results['bare proxy'].cpu.usPerCall;
  const lines = [
    '| target | CPU µs/call (median) | × bare proxy | rounds (µs) | req/s | RSS MB |',
    '| --- | ---: | ---: | --- | ---: | ---: |',
  ];
  const pidOf = Object.fromEntries([
    ['bare proxy', bare.pid],
    ...(floorPid ? [['floor proxy', floorPid]] : []),
    ...targets.map(([key, gateway]) => [key, gateway.pid]),
  ]);
  for (const [key, row] of Object.entries(results)) {
    const rss = (await memoryOf(pidOf[key])).rssMb;
    const bad = row.mismatches + row.errors + row.non2xx;
    lines.push(
      `| ${key}${bad ? ` (${bad} problems)` : ''} | ${row.cpu.usPerCall} | ${Math.round((row.cpu.usPerCall / bareUs) * 100) / 100} | ${row.each.map((r) => r.cpu.usPerCall).join(', ')} | ${row.requestsPerSec} | ${rss} |`,
    );
  }
  await stopAll();
  process.stdout.write(`\n${lines.join('\n')}\n`);
  // Round by round, each target against the bare proxy and (with --baseline) the same row of the
  // other build, measured minutes apart at most: the median of these ratios drifts less with the
  // machine's other load than the ratio of two medians.
  const perRound = (key, against) =>
    results[key].each.map((row, round) => row.cpu.usPerCall / results[against].each[round].cpu.usPerCall);
  const paired = [
    '',
    '| target | median of per-round ratios to the bare proxy | to the baseline build |',
    '| --- | ---: | ---: |',
  ];
  for (const key of Object.keys(results)) {
    if (key === 'bare proxy') continue;
    const twin = key.replace(/^current /, 'baseline ');
    const toBaseline = key.startsWith('current ') && results[twin] ? round2(median(perRound(key, twin))) : '';
    paired.push(`| ${key} | ${round2(median(perRound(key, 'bare proxy')))} | ${toBaseline} |`);
  }
  process.stdout.write(`${paired.join('\n')}\n`);
  if (args.profile) {
    const windows = {};
    for (const [key, gateway] of [['bare proxy', { name: 'bare' }], ...targets]) {
      const file = `${PROFILES_DIR}quick-${gateway.name}-${stamp}.cpuprofile`;
      const window = results[key].each.at(-1).window;
      windows[key] = { file, ...window };
      const summary = await summarizeProfile(file, {
        fromNs: BigInt(window.startNs),
        toNs: BigInt(window.endNs),
        top: 40,
      });
      process.stdout.write(`\n### ${key}: ${file}\n\n${summary.text}\n`);
    }
    // Where each profile's first measured round lies, for a closer look at it.
    writeFileSync(`${PROFILES_DIR}quick-latest.json`, `${JSON.stringify(windows, null, 2)}\n`);
  }
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const round2 = (n) => Math.round(n * 100) / 100;

async function retryUntilLoaded(open) {
  for (let attempt = 0; ; attempt++) {
    try {
      return await open();
    } catch (error) {
      if (attempt >= 50) throw error;
      await new Promise((done) => setTimeout(done, 100));
    }
  }
}

const deadline = setTimeout(async () => {
  log('did not finish within 10 minutes');
  await stopAll();
  process.exit(1);
}, 10 * 60_000);
deadline.unref();
main().then(
  () => clearTimeout(deadline),
  async (error) => {
    log(`failed: ${error?.stack ?? error}`);
    await stopAll();
    process.exit(1);
  },
);
