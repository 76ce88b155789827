import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DownstreamConfig } from '../config/downstreams-section.js';
import { unreachableAtStart } from './reachable-at-start.js';

const downstream = (name: string, baseUrl: string) => ({ name, baseUrl }) as DownstreamConfig;

async function listening(host: string): Promise<Server> {
  const server = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, host, resolve));
  return server;
}

describe('unreachableAtStart', () => {
  let open: Server;
  let closedPort: number;

  beforeAll(async () => {
    open = await listening('127.0.0.1');
    const closed = await listening('127.0.0.1');
    closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
  });
  afterAll(() => new Promise((resolve) => open.close(resolve)));

  it('says nothing of a downstream that accepts a connection', async () => {
    const port = (open.address() as AddressInfo).port;
    expect(await unreachableAtStart([downstream('orders', `http://127.0.0.1:${port}/api`)], 200)).toEqual([]);
  });

  it('names the key of each one nothing answers at, without the credentials in its URL', async () => {
    const lines = await unreachableAtStart(
      [
        downstream('default', `http://127.0.0.1:${closedPort}`),
        downstream('orders', `http://me:hunter2@127.0.0.1:${closedPort}/v1`),
      ],
      200,
    );
    expect(lines).toEqual([
      `Gw:ToolRegistry:DownstreamBaseUrl: nothing answers at http://127.0.0.1:${closedPort}/ (connection refused): start that API, or correct Gw:ToolRegistry:DownstreamBaseUrl`,
      `Gw:Downstreams:orders:BaseUrl: nothing answers at http://127.0.0.1:${closedPort}/v1 (connection refused): start that API, or correct Gw:Downstreams:orders:BaseUrl`,
    ]);
  });

  it('says a host that does not resolve is not found', async () => {
    const [line] = await unreachableAtStart([downstream('orders', 'http://no-such-host.invalid:8080')], 200);
    expect(line).toMatch(
      /nothing answers at http:\/\/no-such-host\.invalid:8080\/ \((host not found|EAI_FAIL|[A-Z_]+)\)/,
    );
  });
});
