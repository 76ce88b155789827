// `pnpm bench:dev`: how long a second `pnpm dev` takes to be ready (issue 29:
// "`pnpm dev` again after a first run: ready in ≤ 15 s (build cache), measured").
//
// A fresh clone of HEAD in a temporary folder, the user's own Node first on the
// PATH (20 on the README's machine), the README's own commands
// (scripts/readme-first-run.mjs): its install, a first `pnpm dev` (turbo builds
// everything and fills the clone's own cache), then ROUNDS more `pnpm dev`, each
// timed from its start to the "Tollgate is running." line and stopped with
// Ctrl-C (SIGINT to its process group) before the next. The verdict is on the
// median. Writes bench/results/dev-restart-<timestamp>.json.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuSeconds, processTree } from './lib/cpu.mjs';
import { machineSummary } from './lib/machine.mjs';
import { freePort } from './lib/processes.mjs';
import {
  cloneHead,
  READY_LINE,
  readmeSetupCommand,
  runCommand,
  startUntilReady,
  userEnv,
  userNode,
} from '../scripts/readme-first-run.mjs';

const TARGET_S = 15;
// When each part of a `pnpm dev` start was done, counted from its start: where the time goes on a loaded machine.
const PHASES = {
  pnpmStarted: '> tollgate@ dev',
  built: 'Tasks:',
  downstreamListening: 'sample-downstream listening',
  notesListening: 'sample OpenAPI API listening',
  gatewayListening: 'tollgate gateway listening',
};
const ROUNDS = 3;
const RESULTS_DIR = new URL('./results/', import.meta.url);
const round1 = (ms) => Math.round(ms / 100) / 10;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const log = (line) => console.log(`dev-restart: ${line}`);

const node = userNode();
if (!node) throw new Error('no `node` on the PATH outside node_modules: the bench runs on the user’s own Node');
if (node.major !== 20) log(`note: the README's machine has Node 20; this one's PATH has ${node.version}`);

const startedAt = new Date();
const loadBefore = loadavg();
const setup = readmeSetupCommand();
const scratch = mkdtempSync(join(tmpdir(), 'dev-restart-'));
const clone = join(scratch, 'tollgate');
try {
  const commit = cloneHead(clone);
  const ports = { PORT: await freePort(), DOWNSTREAM_PORT: await freePort(), OPENAPI_PORT: await freePort() };
  const env = userEnv(node, {
    npm_config_prefer_offline: 'true',
    ...Object.fromEntries(Object.entries(ports).map(([name, port]) => [name, String(port)])),
  });
  log(`clone of ${commit.slice(0, 7)} in ${clone}; \`${setup.install}\``);
  const install = await runCommand(setup.install, { cwd: clone, env, timeoutMs: 600_000 });
  if (install.code !== 0) throw new Error(`install failed (${install.code}):\n${install.output}`);
  log(`installed in ${round1(install.ms)} s`);

  const devOnce = async (what) => {
    const dev = await startUntilReady(setup.dev, { cwd: clone, env, marks: PHASES, timeoutMs: 600_000 });
    const cpuS = round1(cpuSeconds(processTree(dev.pid), { reaped: true }) * 1000);
    const { allStopped, output } = await dev.stop();
    if (!allStopped) throw new Error(`${what}: Ctrl-C left processes running:\n${output}`);
    const phases = Object.fromEntries(Object.entries(dev.marksMs).map(([name, ms]) => [name, round1(ms)]));
    log(
      `${what}: ready in ${round1(dev.readyMs)} s, ${cpuS} s of CPU (${Object.entries(phases)
        .map(([n, s]) => `${n} ${s}`)
        .join(', ')})`,
    );
    return { readyS: round1(dev.readyMs), cpuS, phasesS: phases };
  };
  const first = await devOnce('first `pnpm dev` (builds everything)');
  const firstS = first.readyS;
  const again = [];
  for (let round = 1; round <= ROUNDS; round++) again.push(await devOnce(`second \`pnpm dev\`, round ${round}`));
  const againS = again.map((run) => run.readyS);
  const medianS = median(againS);
  const medianCpuS = median(again.map((run) => run.cpuS));
  const pass = medianS <= TARGET_S;

  const results = {
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    machine: machineSummary(loadBefore),
    node: node.version,
    settings: {
      commit,
      install: setup.install,
      dev: setup.dev,
      rounds: ROUNDS,
      path: `${node.dir} first (the user's Node), then the PATH's other folders outside node_modules`,
      caches: "the machine's npm cache and pnpm store (npm_config_prefer_offline=true); the clone's own turbo cache",
      phases:
        "seconds from the start to the first line of each: pnpm's script line (npx and pnpm started), turbo's summary, each sample API and the gateway listening",
      timed: `from the start of \`${setup.dev}\` to its "${READY_LINE}" line; each run stopped with SIGINT to its group`,
    },
    installS: round1(install.ms),
    firstDev: first,
    secondDev: again,
    verdicts: [
      {
        target: 'second `pnpm dev` ready (build cache), median of 3',
        goal: `≤ ${TARGET_S} s`,
        value: medianS,
        unit: 's',
        pass,
        detail: `runs ${againS.join(', ')} s (median ${medianCpuS} s of CPU); first run ${firstS} s`,
      },
    ],
  };
  const file = new URL(`dev-restart-${startedAt.toISOString().replace(/[:.]/g, '-')}.json`, RESULTS_DIR);
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  console.log(
    `\nsecond \`pnpm dev\` ready in ${medianS} s (median of ${againS.join(', ')} s; target ≤ ${TARGET_S} s): ${pass ? 'PASS' : 'MISS'}` +
      `\nCPU used until ready: median ${medianCpuS} s (${again.map((run) => run.cpuS).join(', ')} s)` +
      `\nfirst \`pnpm dev\` ${firstS} s, install ${round1(install.ms)} s; ${node.version} first on the PATH;` +
      ` load average before ${results.machine.loadAvgBefore.join(' ')}, after ${results.machine.loadAvgAfter.join(' ')}` +
      `\nwritten to ${file.pathname}`,
  );
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
