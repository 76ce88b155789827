import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  eventually,
  freePort,
  GATEWAY_MAIN,
  gatewayEnv,
  runToExit,
  startDownstream,
  startGateway,
  type RunningProcess,
} from './support/processes.js';

/**
 * A first run that goes wrong says so in one line (issue 29): the setting to
 * change, exit 1, no stack trace.
 */
describe('first-run failures at start (dist/main.js)', () => {
  let downstream: RunningProcess;
  let taken: Server;
  let takenPort: number;

  beforeAll(async () => {
    downstream = await startDownstream();
    taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    takenPort = (taken.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await downstream?.stop();
    await new Promise((resolve) => taken?.close(resolve));
  });

  const expectOneLine = (result: { code: number | null; stderr: string }, line: RegExp) => {
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(line);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  };

  it('refuses a port in use, naming PORT', async () => {
    const result = await runToExit(
      GATEWAY_MAIN,
      gatewayEnv({ downstreamUrl: downstream.url, env: { PORT: String(takenPort) } }),
    );
    expectOneLine(
      result,
      new RegExp(`^tollgate: refusing to start: PORT: 127\\.0\\.0\\.1:${takenPort} is already in use`),
    );
  });

  it('refuses a metrics port in use, naming Gw:Metrics:Port', async () => {
    const result = await runToExit(
      GATEWAY_MAIN,
      gatewayEnv({ downstreamUrl: downstream.url, env: { Gw__Metrics__Port: String(takenPort) } }),
    );
    expectOneLine(result, /^tollgate: refusing to start: Gw:Metrics:Port: .* is already in use/);
  });

  it('refuses, in development mode, a Redis that is not there, naming ConnectionStrings:Store', async () => {
    const nobody = await freePort();
    const result = await runToExit(
      GATEWAY_MAIN,
      gatewayEnv({ downstreamUrl: downstream.url, development: true, redisUrl: `redis://127.0.0.1:${nobody}` }),
    );
    expectOneLine(result, /^tollgate: refusing to start: ConnectionStrings:Store: the Redis it names is not reachable/);
  });
  it('refuses, in development mode, a downstream nothing answers at, naming its BaseUrl key (the single-key form)', async () => {
    const nobody = await freePort();
    const result = await runToExit(
      GATEWAY_MAIN,
      gatewayEnv({ downstreamUrl: `http://127.0.0.1:${nobody}`, development: true }),
    );
    expectOneLine(
      result,
      new RegExp(
        `^tollgate: refusing to start: Gw:ToolRegistry:DownstreamBaseUrl: nothing answers at http://127\\.0\\.0\\.1:${nobody}/ `,
      ),
    );
  });

  it('refuses, in development mode, a named downstream nothing answers at, naming Gw:Downstreams:<name>:BaseUrl and hiding its password', async () => {
    const nobody = await freePort();
    const env = { Gw__Downstreams__orders__BaseUrl: `http://user:secret@127.0.0.1:${nobody}` };
    const result = await runToExit(GATEWAY_MAIN, gatewayEnv({ downstreamUrl: downstream.url, development: true, env }));
    expectOneLine(
      result,
      /^tollgate: refusing to start: Gw:Downstreams:orders:BaseUrl: nothing answers at http:\/\/127\.0\.0\.1:\d+\/ .*start that API/,
    );
    expect(result.stderr).not.toContain('secret');
  });

  it('in production, starts without a downstream that is down and reports it in readiness', async () => {
    const nobody = await freePort();
    const gateway = await startGateway({ downstreamUrl: `http://127.0.0.1:${nobody}` });
    try {
      const ready = await eventually(
        () =>
          fetch(`${gateway.url}/health/ready`).then(async (response) => ({
            status: response.status,
            body: (await response.json()) as { components: Record<string, { status: string }> },
          })),
        (reply) => reply.status === 503 && reply.body.components['downstream:default'] !== undefined,
      );
      expect(ready.body.components['downstream:default']!.status).not.toBe('Healthy');
      expect(gateway.child.exitCode).toBeNull();
    } finally {
      await gateway.stop();
    }
  });
});
