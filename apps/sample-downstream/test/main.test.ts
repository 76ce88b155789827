import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The built artifact, run the way production runs it: a separate Node
// process listening on a real port.
const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));

interface Started {
  child: ChildProcess;
  baseUrl: string;
  output: () => string;
}

/** Starts dist/main.js on a free port (PORT=0) and resolves with the URL from its listening line. */
async function start(): Promise<Started> {
  const child = spawn(process.execPath, [MAIN], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line within 10s:\n${output}`)), 10_000);
    child.stdout!.on('data', () => {
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before listening:\n${output}`));
    });
  });
  return { child, baseUrl, output: () => output };
}

describe('sample downstream process (dist/main.js)', () => {
  let server: Started;

  beforeAll(async () => {
    server = await start();
  });

  afterAll(() => {
    if (server?.child.exitCode === null) server.child.kill('SIGKILL');
  });

  it('serves GET /gw/schema over HTTP', async () => {
    const res = await fetch(`${server.baseUrl}/gw/schema`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    const tools = (await res.json()) as Array<{ name: string; httpMethod: string; routePattern: string }>;
    expect(tools.map((t) => t.name)).toContain('list_orders');
    expect(tools.find((t) => t.name === 'update_customer_contact')).toMatchObject({
      httpMethod: 'PATCH',
      routePattern: '/customers/{id}',
    });
    expect(tools.map((t) => t.name)).toEqual([...tools.map((t) => t.name)].sort());
  });

  it('logs one line when listening', () => {
    expect(server.output().trim().split('\n')).toHaveLength(1);
  });

  it('stops cleanly on SIGTERM', async () => {
    const exited = once(server.child, 'exit');
    server.child.kill('SIGTERM');
    const [code] = await exited;
    expect(code).toBe(0);
    await expect(fetch(`${server.baseUrl}/gw/schema`)).rejects.toThrow();
  });
});

describe('sample downstream process: configuration', () => {
  it('refuses an invalid PORT with a clear message', async () => {
    const child = spawn(process.execPath, [MAIN], {
      env: { ...process.env, PORT: 'eighty' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const [code] = await once(child, 'exit');
    expect(code).toBe(1);
    expect(stderr).toContain('PORT must be an integer');
  });
});
