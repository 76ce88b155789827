/**
 * A real, throwaway redis-server for tests: loopback only, a free port, no
 * persistence unless asked. `stop` and `restart` (same port) let tests take
 * the store away and bring it back, the way an outage looks to the gateway.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export interface RedisServer {
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  /** Stops the server; safe to call twice. */
  stop(): Promise<void>;
  /** Starts it again on the same port (stopping it first if it runs). Data is gone unless `persistent`. */
  restart(): Promise<void>;
  /** Freezes the server (SIGSTOP): connections stay open, nothing is answered, what is sent waits in its socket. */
  pause(): void;
  /** Thaws a paused server (SIGCONT): it runs what waited, in the order it arrived. */
  resume(): void;
}

export interface RedisServerOptions {
  /** Path or name of the binary. Default `REDIS_SERVER_BIN` or `redis-server`. */
  binary?: string;
  /** How long to wait for the server to answer. Default 60 s: generous, so a loaded CI machine is slow, not failed. */
  startTimeoutMs?: number;
  /**
   * Keep the data across `stop` and `restart`, like a production Redis with an
   * append-only file: every write is fsynced to a temporary directory, removed
   * when the test process exits. Default false.
   */
  persistent?: boolean;
}

/**
 * How long starting a server (or a cluster) may take by default. Start-up on
 * an idle machine takes milliseconds; on a loaded one a process can get no
 * CPU for seconds, so the bound only catches a server that never answers.
 */
export const START_TIMEOUT_MS = 60_000;

export const defaultBinary = (): string => process.env.REDIS_SERVER_BIN ?? 'redis-server';

/** Whether a redis-server binary can be run here. */
export function isRedisServerAvailable(binary = defaultBinary()): boolean {
  const probe = spawnSync(binary, ['--version'], { stdio: 'ignore' });
  return probe.error === undefined && probe.status === 0;
}

export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  const binary = options.binary ?? defaultBinary();
  const startTimeoutMs = options.startTimeoutMs ?? START_TIMEOUT_MS;
  const port = await freePort();
  const dataDir = options.persistent ? temporaryDirectory() : null;
  const args = serverArguments(port, dataDir);
  let child: ChildProcess | null = await launch(binary, args, port, startTimeoutMs);

  const stop = async () => {
    const running = child;
    child = null;
    if (running) await terminate(running);
  };

  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop,
    async restart() {
      await stop();
      child = await launch(binary, args, port, startTimeoutMs);
    },
    pause: () => void child?.kill('SIGSTOP'),
    resume: () => void child?.kill('SIGCONT'),
  };
}

/** A directory for the append-only file; it outlives `stop` so `restart` finds the data. */
export function temporaryDirectory(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-redis-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function serverArguments(port: number, dataDir: string | null): string[] {
  const common = ['--port', String(port), '--bind', '127.0.0.1', '--protected-mode', 'yes', '--save', ''];
  if (dataDir === null) return [...common, '--appendonly', 'no'];
  return [...common, '--dir', dataDir, '--appendonly', 'yes', '--appendfsync', 'always'];
}

/** Starts redis-server and resolves once it answers PING; it is killed when the test process exits. */
export async function launch(
  binary: string,
  args: string[],
  port: number,
  startTimeoutMs: number,
): Promise<ChildProcess> {
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = once(child, 'exit').then(() => {
    throw new Error(`redis-server exited during start-up:\n${output.trim()}`);
  });
  const spawnFailed = once(child, 'error').then(([error]) => {
    throw new Error(`cannot run ${binary}: ${(error as Error).message}`);
  });
  try {
    await Promise.race([acceptsConnections(port, startTimeoutMs), exited, spawnFailed]);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  // A test that forgets to stop the server must not leave it running.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('exit', () => process.off('exit', killOnExit));
  return child;
}

async function acceptsConnections(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await pingsBack(port, deadline)) return;
    await sleep(25);
  }
  throw new Error(`redis-server on port ${port} did not answer PING within ${timeoutMs} ms`);
}

/**
 * True once the server answers PING; a bare TCP accept comes before it is ready.
 * A probe waits as long as start-up may still take: a shorter timeout per
 * probe would fail every probe of a process that a loaded machine starves.
 */
function pingsBack(port: number, deadline: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(Math.max(1, deadline - Date.now()), () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}

export async function terminate(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

/** Asks the OS for a free loopback port. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (address === null || typeof address === 'string') throw new Error('could not get a free port');
  return address.port;
}
