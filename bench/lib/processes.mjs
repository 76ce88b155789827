// Child processes of the benchmark: started on loopback, tracked, and all
// stopped on every way out (normal end, failure, Ctrl-C, deadline).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

const running = new Set();
const cleanups = [];

/** Registers an async cleanup (e.g. redis.stop) run by stopAll. */
export function onStop(cleanup) {
  cleanups.push(cleanup);
}

/**
 * Spawns `node <args>` on the workspace's Node (the one running this script).
 * Resolves once `ready()` holds; the child's output is kept (last 64 KB) for errors.
 */
export async function startNode(name, args, { env, ready, timeoutMs = 60_000 }) {
  const child = spawn(process.execPath, args, {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk) => (output = (output + chunk).slice(-65_536));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const proc = { name, child, pid: child.pid, output: () => output, stop: () => stopChild(child) };
  running.add(proc);
  child.once('exit', () => running.delete(proc));
  const exited = once(child, 'exit').then(([code]) => {
    throw new Error(`${name} exited with ${code} during start-up:\n${output}`);
  });
  const deadline = sleep(timeoutMs, null, { ref: false }).then(() => {
    throw new Error(`${name} not ready within ${timeoutMs} ms:\n${output}`);
  });
  const url = await Promise.race([ready(() => output), exited, deadline]);
  exited.catch(() => undefined);
  return { ...proc, url };
}

/** Ready when the output shows `listening on http://...`; resolves with that URL. */
export const listeningLine = async (output) => {
  for (;;) {
    const match = /listening on (http:\/\/[\d.]+:\d+)/.exec(output());
    if (match) return match[1];
    await sleep(20);
  }
};

/** Ready when GET url+path answers `status`. */
export const answers =
  (url, path, status = 200) =>
  async () => {
    for (;;) {
      const ok = await fetch(`${url}${path}`).then(
        (r) => r.status === status,
        () => false,
      );
      if (ok) return url;
      await sleep(100);
    }
  };

async function stopChild(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/** Stops every child still running and runs the registered cleanups; safe to call twice. */
export async function stopAll() {
  await Promise.allSettled([...running].map((proc) => proc.stop()));
  await Promise.allSettled(cleanups.splice(0).map((cleanup) => cleanup()));
}

// Last resort: whatever happens, no child outlives the benchmark.
process.on('exit', () => {
  for (const proc of running) proc.child.kill('SIGKILL');
});

/** A free loopback port (for children that cannot report theirs). */
export async function freePort() {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  server.close();
  await once(server, 'close');
  return port;
}

/** VmRSS and VmHWM of a live process, in MB (Linux /proc). */
export async function memoryOf(pid) {
  const { readFile } = await import('node:fs/promises');
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) / 1024;
  return { rssMb: round1(field('VmRSS')), peakRssMb: round1(field('VmHWM')) };
}

const round1 = (n) => Math.round(n * 10) / 10;
