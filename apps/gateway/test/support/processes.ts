import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

/**
 * Starts the BUILT artifacts as separate Node processes on free ports, the
 * way they run in production. vitest runs on the workspace's Node 24, so
 * `process.execPath` is the right binary for the children too.
 */
export const GATEWAY_MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
export const DOWNSTREAM_MAIN = fileURLToPath(new URL('../../../sample-downstream/dist/main.js', import.meta.url));

export const TEST_SIGNING_KEY = 'test-signing-key-that-is-at-least-32-bytes-long';
export const TEST_ADMIN_KEY = 'test-admin-api-key-0123456789abcdef';

export interface RunningProcess {
  child: ChildProcess;
  url: string;
  output(): string;
  /** Sends the signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface ExitedProcess {
  code: number | null;
  stdout: string;
  stderr: string;
}

const LISTENING = /listening on (http:\/\/[\d.]+:\d+)/;

export async function startProcess(
  entry: string,
  env: Record<string, string | undefined>,
  timeoutMs = 30_000,
): Promise<RunningProcess> {
  const child = spawn(process.execPath, [entry], { env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      // A child that never said it listens must not outlive the test that started it.
      child.kill('SIGKILL');
      reject(new Error(`${entry}: no listening line within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    const onData = () => {
      const match = LISTENING.exec(output);
      if (!match) return;
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      resolve(match[1]!);
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${entry} exited with ${code} before listening:\n${output}`));
    });
  });
  return {
    child,
    url,
    output: () => output,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      const closed = once(child, 'close').catch(() => undefined);
      child.kill(signal);
      const [code] = (await once(child, 'exit')) as [number | null];
      await outputRead(closed);
      return code;
    },
  };
}

/** Runs a process expected to exit (e.g. a refused start) and collects its output. */
export async function runToExit(
  entry: string,
  env: Record<string, string | undefined>,
  timeoutMs = 15_000,
): Promise<ExitedProcess> {
  const child = spawn(process.execPath, [entry], { env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const closed = once(child, 'close').catch(() => undefined);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearTimeout(timer);
  await outputRead(closed);
  return { code, stdout, stderr };
}

/**
 * 'exit' may come before the last of a child's output is read (its last log
 * line, say): waits for its pipes to close too, but not for ever, since a
 * process it started could still hold them.
 */
async function outputRead(closed: Promise<unknown>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([closed, new Promise((resolve) => (timer = setTimeout(resolve, 2_000)))]);
  clearTimeout(timer);
}

export interface DownstreamOptions {
  /**
   * The JWKS of the gateway whose assertions the sample then requires on its
   * tool routes (host-kit's requireGateway, audience its own address).
   * Absent, the sample runs alone (REQUIRE_GATEWAY=false): tests may call it directly.
   */
  gatewayJwksUrl?: string;
  /** More of the sample's environment (GATEWAY_JWKS_CACHE_SECONDS, ...). */
  env?: Record<string, string | undefined>;
}

export function startDownstream(options: DownstreamOptions = {}): Promise<RunningProcess> {
  const trust =
    options.gatewayJwksUrl === undefined ? { REQUIRE_GATEWAY: 'false' } : { GATEWAY_JWKS_URL: options.gatewayJwksUrl };
  return startProcess(DOWNSTREAM_MAIN, { PORT: '0', HOST: '127.0.0.1', ...trust, ...options.env });
}

export interface GatewayOptions {
  downstreamUrl: string;
  redisUrl?: string;
  development?: boolean;
  adminApiKey?: string | null;
  env?: Record<string, string | undefined>;
}

/** The gateway with a complete test configuration; `env` overrides any key. */
export function gatewayEnv(options: GatewayOptions): Record<string, string | undefined> {
  return {
    PORT: '0',
    HOST: '127.0.0.1',
    NODE_ENV: options.development ? 'development' : 'production',
    LOG_LEVEL: 'info',
    Gw__LicenseKey: 'test-license',
    Gw__Jwt__SigningKey: TEST_SIGNING_KEY,
    Gw__ToolRegistry__DownstreamBaseUrl: options.downstreamUrl,
    ConnectionStrings__Store: options.redisUrl,
    Gw__Admin__ApiKey: options.adminApiKey === null ? undefined : (options.adminApiKey ?? TEST_ADMIN_KEY),
    ...options.env,
  };
}

export function startGateway(options: GatewayOptions): Promise<RunningProcess> {
  return startProcess(GATEWAY_MAIN, gatewayEnv(options));
}

/** A port nobody listens on right now (for a process whose address must be known before it starts). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Polls until the predicate holds; for states that settle asynchronously (readiness, tool loading). */
export async function eventually<T>(
  probe: () => Promise<T>,
  accept: (value: T) => boolean,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  while (Date.now() < deadline) {
    try {
      last = await probe();
      if (accept(last)) return last;
    } catch {
      // not there yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`condition not met within ${timeoutMs} ms; last value: ${JSON.stringify(last)}`);
}

/** The child sees only what the test sets, plus PATH: no leaking of the developer's Gw__* variables. */
function cleanEnv(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const clean: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '' };
  for (const [key, value] of Object.entries(env)) if (value !== undefined) clean[key] = value;
  return clean;
}
