import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlledDownstream, GET_ITEM, startControlledDownstream } from './support/controlled-downstream.js';
import { HTTP_STATUS_DELIVERY } from './support/delivery.js';
import { GatewayClient } from './support/gateway-client.js';
import {
  createAgentWithToken,
  openRawSession,
  rawCall,
  resultJson,
  waitUntilReady,
  type McpExchange,
  type TestAgent,
} from './support/mcp.js';
import { eventually, freePort, startDownstream, startGateway, type RunningProcess } from './support/processes.js';
import { GET_ITEM_TOOL, startRecordingDownstream, type RecordingDownstream } from './support/recording-downstream.js';

/** `search` (GET /search?q=…) of the catalog downstream. */
const SEARCH_TOOL = {
  ...GET_ITEM_TOOL,
  name: 'search',
  description: 'Searches the catalog.',
  routePattern: '/search',
  parameterSources: { q: 'query' },
  inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
};

const BILLING_FAILURES = 2;

interface Probe {
  status: number;
  body: any;
}

const probe = async (url: string): Promise<Probe> => {
  const response = await fetch(url);
  return { status: response.status, body: await response.json() };
};

const toolNames = (reply: McpExchange): string[] =>
  reply.message.result.tools.map((tool: { name: string }) => tool.name).sort();

/**
 * Issue 18's "done when": one gateway (dist/main.js) in front of three
 * downstreams: `orders` (a controlled downstream, prefix `orders`), `catalog`
 * (a recording downstream, no prefix) and `billing` (prefix `billing`),
 * stopped when the gateway starts.
 */
describe('one gateway, three downstreams (one of them stopped)', () => {
  let orders: ControlledDownstream;
  let catalog: RecordingDownstream;
  const catalogTools: object[] = [GET_ITEM_TOOL, SEARCH_TOOL];
  let billing: ControlledDownstream;
  let gateway: RunningProcess;
  let api: GatewayClient;
  let admin: string;
  let agent: TestAgent;
  let sessionId: string;
  let id = 10;

  beforeAll(async () => {
    [orders, catalog, billing] = await Promise.all([
      startControlledDownstream(),
      startRecordingDownstream(catalogTools),
      startControlledDownstream(),
    ]);
    billing.tools = [{ ...GET_ITEM, name: 'get_invoice', routePattern: '/invoices/{id}' }];
    // Stopped before the gateway starts; it comes back on the same port later.
    await billing.kill();
    gateway = await startGateway({
      downstreamUrl: 'unused',
      env: {
        ...HTTP_STATUS_DELIVERY,
        Gw__ToolRegistry__DownstreamBaseUrl: undefined,
        Gw__Downstreams__orders__BaseUrl: orders.url,
        Gw__Downstreams__orders__Prefix: 'orders',
        Gw__Downstreams__catalog__BaseUrl: catalog.url,
        Gw__Downstreams__billing__BaseUrl: billing.url,
        Gw__Downstreams__billing__Prefix: 'billing',
        Gw__Downstreams__billing__Retries: '0',
        Gw__Downstreams__billing__Breaker__FailureThreshold: String(BILLING_FAILURES),
        Gw__Downstreams__billing__Breaker__BreakSeconds: '60',
        // Every call must reach a downstream for the counts below to mean anything.
        Gw__Cache__Enabled: 'false',
      },
    });
    await waitUntilReady(gateway.url);
    api = new GatewayClient(gateway.url);
    admin = await api.adminToken();
    agent = await createAgentWithToken(api, admin, { label: 'many downstreams', dailyTokenBudget: 1_000_000 });
    ({ sessionId } = await openRawSession(gateway.url, agent.token));
  });
  afterAll(async () => {
    await gateway?.stop();
    await Promise.all([orders?.kill(), catalog?.close(), billing?.kill()]);
  });

  const call = (name: string, args: object) =>
    rawCall(gateway.url, agent.token, sessionId, 'tools/call', { name, arguments: args }, id++);
  const list = () => rawCall(gateway.url, agent.token, sessionId, 'tools/list', {}, id++);
  const metrics = async () => (await api.request('GET', '/metrics', admin)).body as string;

  it("serves the two running downstreams' tools under their prefixes and reports the stopped one as degraded, ready", async () => {
    expect(toolNames(await list())).toEqual(['get_item', 'orders_create_item', 'orders_get_item', 'search']);
    const ready = await probe(`${gateway.url}/health/ready`);
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({
      status: 'Degraded',
      components: {
        cacheStore: { status: 'Healthy' },
        embeddingModel: { status: 'Healthy' },
        'downstream:orders': { status: 'Healthy' },
        'downstream:catalog': { status: 'Healthy' },
        'downstream:billing': {
          status: 'Degraded',
          description: expect.stringMatching(/^tools not loaded: its \/gw\/schema could not be read/),
        },
      },
    });
    // The report is public: no address of a downstream in it.
    expect(JSON.stringify(ready.body)).not.toContain('127.0.0.1');

    const tools = await api.request('GET', '/management/tools', admin);
    expect(tools.body.downstreams.map(({ name, loaded, toolCount }: any) => [name, loaded, toolCount])).toEqual([
      ['orders', true, 2],
      ['catalog', true, 2],
      ['billing', false, 0],
    ]);
    expect(tools.body.definitions.find((tool: any) => tool.name === 'orders_get_item')).toMatchObject({
      downstream: 'orders',
      declaredName: 'get_item',
      routePattern: '/items/{id}',
    });
    expect(await metrics()).toMatch(/^tollgate_downstream_tools\{downstream="billing"\} 0$/m);
  });

  it('sends each call to its own downstream, under the name that downstream declared; audit and metrics name the downstream', async () => {
    const ordersBefore = orders.hits.length;
    const catalogBefore = catalog.requests.length;
    const fromOrders = await call('orders_get_item', { id: 7 });
    expect(fromOrders.status).toBe(200);
    expect(resultJson(fromOrders.message.result)).toMatchObject({ id: 7, name: 'widget' });
    const fromCatalog = await call('get_item', { id: 'x-1' });
    expect(resultJson(fromCatalog.message.result)).toMatchObject({ ok: true, target: '/items/x-1' });
    expect(resultJson((await call('search', { q: 'lamp' })).message.result)).toMatchObject({
      target: '/search?q=lamp',
    });
    expect(orders.hits.slice(ordersBefore)).toEqual([{ method: 'GET', path: '/items/7' }]);
    expect(catalog.requests.slice(catalogBefore).map((request) => request.target)).toEqual([
      '/items/x-1',
      '/search?q=lamp',
    ]);

    const records = await eventually(
      async () =>
        (await api.request('GET', `/management/agents/${agent.agentId}/audit?limit=10`, admin)).body.records as any[],
      (found) => found.filter((record) => record.kind === 'tool-call').length >= 3,
    );
    expect(
      records
        .filter((record) => record.kind === 'tool-call')
        .map(({ tool, downstream, outcome }) => ({ tool, downstream, outcome })),
    ).toEqual([
      { tool: 'search', downstream: 'catalog', outcome: 'ok' },
      { tool: 'get_item', downstream: 'catalog', outcome: 'ok' },
      { tool: 'orders_get_item', downstream: 'orders', outcome: 'ok' },
    ]);
    const text = await metrics();
    expect(text).toMatch(/^tollgate_downstream_calls_total\{downstream="orders",outcome="ok"\} 1$/m);
    expect(text).toMatch(/^tollgate_downstream_calls_total\{downstream="catalog",outcome="ok"\} 2$/m);
  });

  it('lets an allowlist name a whole downstream', async () => {
    const limited = await createAgentWithToken(api, admin, {
      label: 'orders only',
      dailyTokenBudget: 10_000,
      allowedTools: ['orders.*', 'search'],
    });
    const session = await openRawSession(gateway.url, limited.token);
    const listed = await rawCall(gateway.url, limited.token, session.sessionId, 'tools/list');
    expect(toolNames(listed)).toEqual(['orders_create_item', 'orders_get_item', 'search']);
    const refused = await rawCall(gateway.url, limited.token, session.sessionId, 'tools/call', {
      name: 'get_item',
      arguments: { id: 'x' },
    });
    expect(refused.status).toBe(403);
  });

  it('loads the stopped downstream once it is back, without a restart, and becomes Healthy', async () => {
    await billing.start();
    const back = performance.now();
    await eventually(list, (reply) => toolNames(reply).includes('billing_get_invoice'), 15_000);
    console.info(`billing's tools served ${Math.round(performance.now() - back)} ms after it came back`);
    expect((await call('billing_get_invoice', { id: 3 })).status).toBe(200);
    expect(billing.hits).toEqual([{ method: 'GET', path: '/invoices/3' }]);
    const ready = await eventually(
      () => probe(`${gateway.url}/health/ready`),
      (reply) => reply.body.status === 'Healthy',
    );
    expect(ready.status).toBe(200);
  });

  it('refuses a tool named like another downstream’s, naming both and the tool; the downstream whose name sorts first serves it', async () => {
    // catalog (unprefixed) declares the name orders serves: catalog sorts before orders, so it takes the name (issue 25 finding 3).
    catalogTools.push({ ...GET_ITEM_TOOL, name: 'orders_get_item', routePattern: '/shadow/{id}' });
    try {
      const refreshed = await api.request('POST', '/management/tools/refresh', admin);
      expect(refreshed.status).toBe(200);
      expect(refreshed.body.problems).toContain(
        'tool "orders_get_item" of downstream orders refused: downstream catalog already serves a tool of that name (set a Prefix on one of them)',
      );
      // The log line is written as the answer goes out and may reach the pipe after it.
      const line =
        'tool \\"orders_get_item\\" of downstream orders refused: downstream catalog already serves a tool of that name';
      expect(
        await eventually(
          async () => gateway.output(),
          (output) => output.includes(line),
          5_000,
        ),
      ).toContain(line);

      const ordersBefore = orders.hits.length;
      const catalogBefore = catalog.requests.length;
      // Catalog's definition of the name takes a string id.
      expect((await call('orders_get_item', { id: 's-8' })).status).toBe(200);
      expect(orders.hits.length).toBe(ordersBefore);
      expect(catalog.requests.length).toBe(catalogBefore + 1);

      const ready = await probe(`${gateway.url}/health/ready`);
      expect(ready.status).toBe(200);
      expect(ready.body.components['downstream:orders']).toMatchObject({
        status: 'Degraded',
        description: expect.stringContaining(
          'tool "orders_get_item" refused: downstream catalog serves a tool of that name',
        ),
      });
    } finally {
      catalogTools.pop();
      expect((await api.request('POST', '/management/tools/refresh', admin)).status).toBe(200);
    }
  });

  it("opens the stopped downstream's breaker alone: the other downstreams' calls go on", async () => {
    await billing.kill();
    for (let i = 0; i < BILLING_FAILURES; i++) {
      const failed = await call('billing_get_invoice', { id: 4 });
      expect(failed.status).toBe(502);
      expect(failed.message.error.code).toBe(-32002);
    }
    const started = performance.now();
    const open = await call('billing_get_invoice', { id: 4 });
    expect(open.status).toBe(503);
    expect(open.message.error.code).toBe(-32003);
    expect(performance.now() - started).toBeLessThan(100);

    // The others' breakers stay closed and their calls reach them.
    for (const [name, args] of [
      ['orders_get_item', { id: 9 }],
      ['get_item', { id: 'y' }],
      ['search', { q: 'desk' }],
    ] as const) {
      expect((await call(name, args)).status, name).toBe(200);
    }
    const text = await metrics();
    expect(text).toMatch(/^tollgate_downstream_breaker_state\{downstream="billing"\} 2$/m);
    expect(text).toMatch(/^tollgate_downstream_breaker_state\{downstream="orders"\} 0$/m);
    expect(text).toMatch(/^tollgate_downstream_breaker_state\{downstream="catalog"\} 0$/m);
    expect(text).toMatch(/^tollgate_breaker_state 2$/m);
    expect(
      await eventually(
        async () => gateway.output(),
        (output) => /circuit breaker open \(downstream billing\)/.test(output),
        5_000,
      ),
    ).toMatch(/circuit breaker open \(downstream billing\)/);

    const ready = await probe(`${gateway.url}/health/ready`);
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({
      status: 'Degraded',
      components: {
        'downstream:orders': { status: 'Healthy' },
        'downstream:catalog': { status: 'Healthy' },
        'downstream:billing': {
          status: 'Degraded',
          description: '1 tools served; circuit open: its calls fail fast until the break ends',
        },
      },
    });
  });
});

/** The payload of a JWT, unverified: what the gateway told the downstream. */
const jwtPayload = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));

/**
 * Each downstream is told, in the gateway's signed assertion, the tool by the
 * name it declared (not the prefixed one agents see) and its own audience: the
 * sample downstream, behind the prefix `shop`, verifies both with host-kit's
 * requireGateway; a recording downstream shows what it was sent.
 */
describe('signed assertions with several downstreams: declared tool names, one audience each', () => {
  let shop: RunningProcess;
  let items: RecordingDownstream;
  let gateway: RunningProcess;
  let agent: TestAgent;
  let sessionId: string;

  beforeAll(async () => {
    const port = await freePort();
    [shop, items] = await Promise.all([
      startDownstream({ gatewayJwksUrl: `http://127.0.0.1:${port}/.well-known/jwks.json` }),
      startRecordingDownstream([GET_ITEM_TOOL]),
    ]);
    gateway = await startGateway({
      downstreamUrl: 'unused',
      env: {
        PORT: String(port),
        Gw__ToolRegistry__DownstreamBaseUrl: undefined,
        // The sample's audience defaults to its own address: the gateway's default for this downstream too.
        Gw__Downstreams__shop__BaseUrl: shop.url,
        Gw__Downstreams__shop__Prefix: 'shop',
        Gw__Downstreams__items__BaseUrl: items.url,
        Gw__Downstreams__items__Audience: 'urn:items',
        Gw__Cache__Enabled: 'false',
      },
    });
    await eventually(
      () => probe(`${gateway.url}/health/ready`),
      (reply) => reply.body.status === 'Healthy',
    );
    const api = new GatewayClient(gateway.url);
    agent = await createAgentWithToken(api, await api.adminToken(), {
      label: 'assertions',
      dailyTokenBudget: 100_000,
      scopes: ['orders:read'],
    });
    ({ sessionId } = await openRawSession(gateway.url, agent.token));
  });
  afterAll(async () => {
    await gateway?.stop();
    await Promise.all([shop?.stop(), items?.close()]);
  });

  it("passes host-kit's check through a prefix: the assertion names the tool as the downstream declared it, for its own audience", async () => {
    const called = await rawCall(
      gateway.url,
      agent.token,
      sessionId,
      'tools/call',
      { name: 'shop_get_order', arguments: { id: 1001 } },
      20,
    );
    expect(called.status).toBe(200);
    expect(called.message.result.isError).toBeFalsy();
    expect(resultJson(called.message.result)).toMatchObject({ id: 1001 });
    const line = await eventually(
      async () =>
        shop
          .output()
          .split('\n')
          .find((entry) => entry.startsWith('gateway call:')),
      (found) => found !== undefined,
      5_000,
    );
    expect(line).toMatch(new RegExp(`^gateway call: tool=get_order agent=${agent.agentId} `));

    expect(
      (
        await rawCall(
          gateway.url,
          agent.token,
          sessionId,
          'tools/call',
          { name: 'get_item', arguments: { id: 'a' } },
          21,
        )
      ).status,
    ).toBe(200);
    const assertion = items.requestHeaders.at(-1)?.['tollgate-assertion'];
    expect(typeof assertion).toBe('string');
    expect(jwtPayload(assertion as string)).toMatchObject({ aud: 'urn:items', tool: 'get_item', sub: agent.agentId });
  });
});
