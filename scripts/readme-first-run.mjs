// The README's quick start as a new user runs it: a fresh clone of this
// repository's committed HEAD, the user's own Node 20 first on the PATH, and
// the README's own command line (`npx -y pnpm@… install && npx -y pnpm@… dev`).
// Shared by the first-install test (scripts/first-install.test.mjs) and the
// second-`pnpm dev` bench (bench/dev-restart.mjs), so both run exactly what the
// README says.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { delimiter, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The line `pnpm dev` prints once the gateway, both sample APIs and the development token are ready. */
export const READY_LINE = 'Tollgate is running.';

/**
 * The quick start's "install, build and run" line, read from the README so a
 * change there is what runs here: `{ install, dev }`, its two halves.
 */
export function readmeSetupCommand() {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const line = readme.split('\n').find((text) => /^npx .*pnpm@\S+ install && npx .*pnpm@\S+ dev$/.test(text.trim()));
  if (!line) throw new Error('README.md: no `npx … pnpm@… install && npx … pnpm@… dev` line in the quick start');
  const [install, dev] = line.trim().split(' && ');
  return { install, dev };
}

/**
 * The user's own Node: the first `node` on the PATH outside any node_modules
 * (pnpm puts the workspace's Node 24 first for its scripts, this test's
 * runner included). `{ dir, version, major, otherDirs }`, or undefined.
 */
export function userNode(path = process.env.PATH ?? '') {
  const dirs = path.split(delimiter).filter((dir) => dir && !dir.split(sep).includes('node_modules'));
  const dir = dirs.find((candidate) => existsSync(join(candidate, 'node')));
  if (!dir) return undefined;
  const version = execFileSync(join(dir, 'node'), ['--version'], { encoding: 'utf8' }).trim();
  return { dir, version, major: Number(version.slice(1).split('.')[0]), otherDirs: dirs.filter((d) => d !== dir) };
}

// What a user's shell has; nothing of the pnpm, npm, vitest or CI that runs this (npm_config_*, NODE_ENV=test, CI…).
const USER_VARIABLES = ['HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TERM', 'TMPDIR'];
// Where pnpm keeps its store and npm its cache: the machine's own, so an install reuses what is already there.
const STORE_VARIABLES = ['XDG_DATA_HOME', 'XDG_CACHE_HOME', 'XDG_CONFIG_HOME', 'PNPM_HOME'];

/** A user's environment with `node` (from userNode) first on the PATH, plus `extra`. */
export function userEnv(node, extra = {}) {
  const env = {};
  for (const name of [...USER_VARIABLES, ...STORE_VARIABLES]) {
    if (process.env[name] !== undefined) env[name] = process.env[name];
  }
  return { ...env, PATH: [node.dir, ...node.otherDirs].join(delimiter), ...extra };
}

/** Clones this repository's committed HEAD (not the working tree's edits) into `into`; returns the commit. */
export function cloneHead(into) {
  const commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
  execFileSync('git', ['clone', '--quiet', '--no-checkout', REPO_ROOT, into], { stdio: 'ignore' });
  execFileSync('git', ['-c', 'advice.detachedHead=false', 'checkout', '--quiet', '--detach', commit], {
    cwd: into,
    stdio: 'ignore',
  });
  return commit;
}

/**
 * Runs `command` through `sh` as a terminal would: its own process group, so
 * `stop` can send Ctrl-C's SIGINT to every process of it. stdout and stderr
 * are read together, in the order they come.
 */
function startShell(command, { cwd, env, marks = {} }) {
  const started = performance.now();
  const child = spawn('sh', ['-c', command], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const marksMs = {};
  const read = (chunk) => {
    output += chunk;
    for (const [name, text] of Object.entries(marks)) {
      if (marksMs[name] === undefined && output.includes(text)) marksMs[name] = performance.now() - started;
    }
  };
  child.stdout.on('data', read);
  child.stderr.on('data', read);
  const exited = new Promise((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
  return { child, started, exited, marksMs, output: () => output };
}

function groupAlive(pid) {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

function killGroup(pid) {
  if (groupAlive(pid)) process.kill(-pid, 'SIGKILL');
}

const within = (promise, ms) =>
  Promise.race([promise, new Promise((resolve) => setTimeout(() => resolve(undefined), ms).unref())]);

/** Runs `command` to its end: `{ code, output, ms }`; past `timeoutMs` its whole group is killed and it throws. */
export async function runCommand(command, { cwd, env, timeoutMs }) {
  const run = startShell(command, { cwd, env });
  const result = await within(run.exited, timeoutMs);
  if (!result) {
    killGroup(run.child.pid);
    throw new Error(`\`${command}\` did not finish within ${timeoutMs / 1000} s:\n${run.output()}`);
  }
  return { code: result.code, output: run.output(), ms: performance.now() - run.started };
}

/**
 * Starts `command` (the README's `pnpm dev`) and resolves once its output has
 * `readyLine`, with `readyMs` counted from the start, the `pid` of its shell
 * (and group), and `marksMs`: for each
 * `marks` entry (name: text), when its text first came (the phases of a start).
 * `stop()` presses Ctrl-C (SIGINT to the group) and resolves with
 * `{ allStopped, output }` once every process of the group is gone or after
 * `stopMs`, when the rest are killed.
 */
export async function startUntilReady(command, { cwd, env, readyLine = READY_LINE, marks, timeoutMs }) {
  const run = startShell(command, { cwd, env, marks });
  const pid = run.child.pid;
  const ready = new Promise((resolve) => {
    const check = () => {
      if (!run.output().includes(readyLine)) return;
      run.child.stdout.off('data', check);
      resolve(performance.now() - run.started);
    };
    run.child.stdout.on('data', check);
  });
  const readyMs = await within(Promise.race([ready, run.exited.then(() => undefined)]), timeoutMs);
  if (readyMs === undefined) {
    killGroup(pid);
    throw new Error(`\`${command}\` printed no "${readyLine}" within ${timeoutMs / 1000} s:\n${run.output()}`);
  }
  return {
    pid,
    readyMs,
    marksMs: run.marksMs,
    output: run.output,
    async stop(stopMs = 15_000) {
      if (groupAlive(pid)) process.kill(-pid, 'SIGINT');
      const deadline = performance.now() + stopMs;
      await within(run.exited, stopMs);
      // The shell can end before the processes it started: wait for the whole group.
      while (groupAlive(pid) && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
      const allStopped = !groupAlive(pid);
      killGroup(pid);
      return { allStopped, output: run.output() };
    },
  };
}

// A JWT (the printed development token) or a random id could hold "warn" by chance: they are not words.
const RANDOM_TEXT = [/eyJ[\w-]*\.[\w-]*\.[\w-]*/g, /\b[a-z]{2,5}_[\w-]{16,}/g];
// Words and npm/pnpm/Node markers of a warning, and pino's warn and error levels (40, 50) in the gateway's JSON lines.
const WARNING = /warn|deprecat|"level":(40|50|60)\b/i;

/** The lines of `output` that read as a warning and contain none of the `explained` texts. */
export function unexplainedWarnings(output, explained) {
  return output
    .split('\n')
    .map((line) => line.replace(/\x1b\[[0-9;]*m/g, '').trimEnd())
    .filter((line) => WARNING.test(RANDOM_TEXT.reduce((text, pattern) => text.replace(pattern, '…'), line)))
    .filter((line) => !explained.some((text) => line.includes(text)));
}
