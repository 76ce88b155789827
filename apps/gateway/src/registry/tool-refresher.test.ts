import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ToolCatalog } from './tool-catalog.js';
import { ToolRefresher } from './tool-refresher.js';

const tool = (name: string) => ({
  name,
  description: `The ${name} tool.`,
  httpMethod: 'GET',
  routePattern: `/${name}`,
  parameterSources: {},
  inputSchema: { type: 'object', properties: {}, required: [] },
});

/** A downstream whose /gw/schema answer the test sets: a status and a body. */
class SchemaServer {
  answer: { status: number; body: unknown } = { status: 200, body: [] };
  reads = 0;
  #server: Server | null = null;
  port = 0;

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<this> {
    const server = createServer((_request, response) => {
      this.reads++;
      response
        .writeHead(this.answer.status, { 'content-type': 'application/json' })
        .end(JSON.stringify(this.answer.body));
    });
    server.listen(this.port, '127.0.0.1');
    await once(server, 'listening');
    this.port = (server.address() as AddressInfo).port;
    this.#server = server;
    return this;
  }

  async stop(): Promise<void> {
    const server = this.#server;
    this.#server = null;
    if (!server) return;
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  }
}

const servers: SchemaServer[] = [];
const refreshers: ToolRefresher[] = [];
afterEach(async () => {
  for (const refresher of refreshers.splice(0)) refresher.stop();
  await Promise.all(servers.splice(0).map((server) => server.stop()));
});

async function until(probe: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Three downstreams: one up, one serving a broken schema, one stopped (its port known, nobody listening). */
async function threeDownstreams() {
  const up = await new SchemaServer().start();
  up.answer = { status: 200, body: [tool('get_order')] };
  const broken = await new SchemaServer().start();
  broken.answer = { status: 200, body: { tools: 'not a list' } };
  const stopped = await new SchemaServer().start();
  stopped.answer = { status: 200, body: [tool('get_invoice')] };
  await stopped.stop();
  servers.push(up, broken, stopped);
  const catalog = new ToolCatalog([
    { name: 'orders', prefix: 'orders' },
    { name: 'broken', prefix: '' },
    { name: 'billing', prefix: 'billing' },
  ]);
  const errors: string[] = [];
  const refresher = new ToolRefresher({
    catalog,
    downstreams: [
      { name: 'orders', baseUrl: up.url },
      { name: 'broken', baseUrl: broken.url },
      { name: 'billing', baseUrl: stopped.url },
    ],
    refreshIntervalMs: 0,
    unusableRetryMs: 20,
    refreshMaxWaitMs: 300,
    onError: (_error, _reason, downstream) => errors.push(downstream ?? '?'),
  });
  refreshers.push(refresher);
  return { catalog, refresher, up, broken, stopped, errors };
}

describe('ToolRefresher with several downstreams', () => {
  it('loads each downstream on its own: one down or broken does not hold up the others, and each loads once it can', async () => {
    const { catalog, refresher, broken, stopped, errors } = await threeDownstreams();
    const initial = refresher.initialLoad();
    await until(() => catalog.loaded);
    expect(catalog.definitions().map((definition) => definition.name)).toEqual(['orders_get_order']);

    // The broken schema fails at once and is read again after a growing wait; the stopped one is retried with backoff.
    await until(
      () => errors.filter((name) => name === 'broken').length >= 2 && catalog.downstreams()[2]!.lastError !== null,
    );
    expect(broken.reads).toBeGreaterThanOrEqual(2);
    expect(
      catalog.downstreams().map(({ name, loaded, lastError }) => ({ name, loaded, failing: lastError !== null })),
    ).toEqual([
      { name: 'orders', loaded: true, failing: false },
      { name: 'broken', loaded: false, failing: true },
      { name: 'billing', loaded: false, failing: true },
    ]);
    expect(catalog.downstreams()[1]!.lastError!.message).toMatch(/did not answer a JSON array of tool definitions/);

    broken.answer = { status: 200, body: [tool('search')] };
    await stopped.start();
    await initial;
    expect(catalog.definitions().map((definition) => definition.name)).toEqual([
      'orders_get_order',
      'search',
      'billing_get_invoice',
    ]);
    expect(catalog.downstreams().every((downstream) => downstream.lastError === null)).toBe(true);
  });

  it('refreshes every downstream on demand, keeping the tools of one that cannot be read, and fails only when none can', async () => {
    const { catalog, refresher, up, broken, stopped } = await threeDownstreams();
    broken.answer = { status: 200, body: [tool('search')] };
    await stopped.start();
    await refresher.initialLoad();
    await stopped.stop();
    up.answer = { status: 200, body: [tool('get_order'), tool('cancel_order')] };

    const reload = await refresher.reload('admin', 'test');
    expect(reload.tools).toEqual(['orders_get_order', 'orders_cancel_order', 'search', 'billing_get_invoice']);
    expect(reload.downstreams).toEqual([
      { name: 'orders', ok: true, tools: 2 },
      { name: 'broken', ok: true, tools: 1 },
      { name: 'billing', ok: false, error: expect.any(String) },
    ]);
    expect(catalog.downstreams()[2]).toMatchObject({
      loaded: true,
      toolCount: 1,
      lastError: { message: expect.any(String) },
    });

    await up.stop();
    await broken.stop();
    await expect(refresher.refresh('test')).rejects.toThrow(/orders: .*; broken: .*; billing: /);
    expect(catalog.definitions()).toHaveLength(4);
  });
});
