import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GatewayClient } from './support/gateway-client.js';
import { createAgentWithToken, mcpRaw, openRawSession, waitUntilReady, type TestAgent } from './support/mcp.js';
import { eventually, startGateway, type RunningProcess } from './support/processes.js';
import { HTTP_STATUS_DELIVERY } from './support/delivery.js';

/** An argument value that must never leave the gateway in a span. */
const SECRET_ID = 'item-secret-4111111111111111';

const GET_ITEM = {
  name: 'get_item',
  description: 'One item by id.',
  allowWrite: false,
  maxResponseTokens: 500,
  category: null,
  requiredScopes: [],
  httpMethod: 'GET',
  routePattern: '/items/{id}',
  parameterSources: { id: 'route' },
  inputSchema: { type: 'object', properties: { id: { type: 'string', description: 'Item id' } }, required: ['id'] },
};

interface Listening {
  url: string;
  close(): Promise<void>;
}

async function listen(server: Server): Promise<Listening> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A downstream that serves `get_item` and writes down the headers of every tool request. */
async function startDownstream() {
  const seen: IncomingHttpHeaders[] = [];
  let status = 200;
  const server = createServer((request, response) => {
    request.resume().on('end', () => {
      response.setHeader('Content-Type', 'application/json');
      if (request.url === '/gw/schema') return response.end(JSON.stringify([GET_ITEM]));
      seen.push(request.headers);
      response.statusCode = status;
      response.end(JSON.stringify({ id: request.url, name: 'Widget' }));
    });
  });
  return { ...(await listen(server)), seen, setStatus: (next: number) => (status = next) };
}

/** An OTLP/HTTP collector: records every JSON body POSTed to /v1/traces. */
async function startCollector() {
  const bodies: any[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      if (request.method === 'POST' && request.url === '/v1/traces') bodies.push(JSON.parse(body));
      response.setHeader('Content-Type', 'application/json');
      response.end('{}');
    });
  });
  return { ...(await listen(server)), bodies };
}

interface CollectedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  status?: { code?: number };
  attributes: Record<string, unknown>;
  resource: Record<string, unknown>;
}

/** OTLP JSON flattened: one entry per span, attributes and resource as plain objects. */
function spansIn(bodies: any[]): CollectedSpan[] {
  const plain = (attributes: any[] = []) =>
    Object.fromEntries(
      attributes.map(({ key, value }) => [
        key,
        value.stringValue ?? (value.intValue === undefined ? value.boolValue : Number(value.intValue)),
      ]),
    );
  return bodies.flatMap((body) =>
    body.resourceSpans.flatMap((resourceSpans: any) =>
      resourceSpans.scopeSpans.flatMap((scope: any) =>
        scope.spans.map((span: any) => ({
          ...span,
          attributes: plain(span.attributes),
          resource: plain(resourceSpans.resource?.attributes),
        })),
      ),
    ),
  );
}

const SERVER_KIND = 2;
const STATUS_ERROR = 2;
const hex = (bytes: number) => randomBytes(bytes).toString('hex');

async function callTool(gateway: string, agent: TestAgent, id: string, headers: Record<string, string> = {}) {
  const { sessionId } = await openRawSession(gateway, agent.token);
  return mcpRaw(
    gateway,
    { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'get_item', arguments: { id } } },
    { token: agent.token, sessionId, headers },
  );
}

async function agentFor(gateway: RunningProcess): Promise<TestAgent> {
  await waitUntilReady(gateway.url);
  const client = new GatewayClient(gateway.url);
  return createAgentWithToken(client, await client.adminToken(), { label: 'traced', dailyTokenBudget: 100_000 });
}

describe('OpenTelemetry tracing (dist/main.js, OTLP/HTTP to a local collector)', () => {
  let downstream: Awaited<ReturnType<typeof startDownstream>>;
  let collector: Awaited<ReturnType<typeof startCollector>>;
  let gateway: RunningProcess;
  let agent: TestAgent;

  beforeAll(async () => {
    downstream = await startDownstream();
    collector = await startCollector();
    gateway = await startGateway({
      downstreamUrl: downstream.url,
      env: {
        ...HTTP_STATUS_DELIVERY,
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${collector.url}/v1/traces`,
        OTEL_BSP_SCHEDULE_DELAY: '100',
      },
    });
    agent = await agentFor(gateway);
  });

  afterEach(() => {
    downstream.setStatus(200);
  });

  afterAll(async () => {
    await gateway?.stop();
    await downstream?.close();
    await collector?.close();
  });

  it("continues the client's trace: root span, one span per step, traceparent to the downstream", async () => {
    const traceId = hex(16);
    const clientSpanId = hex(8);
    const reply = await callTool(gateway.url, agent, SECRET_ID, { traceparent: `00-${traceId}-${clientSpanId}-01` });
    expect(reply.status).toBe(200);

    const downstreamParent = String(downstream.seen.at(-1)!.traceparent).split('-');
    expect(downstreamParent[1]).toBe(traceId);
    const inTrace = await eventually(
      async () => spansIn(collector.bodies).filter((span) => span.traceId === traceId),
      (spans) => spans.some((span) => span.name === 'tollgate.tools/call'),
    );
    const root = inTrace.find((span) => span.name === 'tollgate.tools/call')!;
    expect(root).toMatchObject({ parentSpanId: clientSpanId, kind: SERVER_KIND });
    expect(root.attributes).toMatchObject({
      'tollgate.tool': 'get_item',
      'tollgate.agent.id': agent.agentId,
      'tollgate.outcome': 'ok',
      'http.response.status_code': 200,
    });
    expect(root.resource).toMatchObject({ 'service.name': 'tollgate-gateway', 'service.version': expect.any(String) });
    const steps = inTrace.filter((span) => span.parentSpanId === root.spanId).map((span) => span.name);
    expect(steps.sort()).toEqual(
      [
        'tollgate.authorize',
        'tollgate.validate',
        'tollgate.budget.reserve',
        'tollgate.cache.lookup',
        'tollgate.forward',
        'tollgate.privacy',
        'tollgate.cap',
        'tollgate.budget.settle',
      ].sort(),
    );
    const forward = inTrace.find((span) => span.name === 'tollgate.forward')!;
    expect(downstreamParent[2]).toBe(forward.spanId);
    expect(JSON.stringify(collector.bodies)).not.toContain(SECRET_ID);
  });

  it('marks a call the downstream failed as an error span with its outcome and codes', async () => {
    downstream.setStatus(500);
    const traceId = hex(16);
    const reply = await callTool(gateway.url, agent, 'x-1', { traceparent: `00-${traceId}-${hex(8)}-01` });
    expect(reply.status).toBe(502);

    const inTrace = await eventually(
      async () => spansIn(collector.bodies).filter((span) => span.traceId === traceId),
      (spans) => spans.some((span) => span.name === 'tollgate.tools/call'),
    );
    const root = inTrace.find((span) => span.name === 'tollgate.tools/call')!;
    expect(root.status?.code).toBe(STATUS_ERROR);
    expect(root.attributes).toMatchObject({
      'tollgate.outcome': 'downstream-error',
      'http.response.status_code': 502,
      'tollgate.jsonrpc.code': -32002,
    });
    const forward = inTrace.find((span) => span.name === 'tollgate.forward')!;
    expect(forward.status?.code).toBe(STATUS_ERROR);
    expect(forward.attributes).toMatchObject({ 'http.response.status_code': 500, 'error.type': 'DownstreamCallError' });
  });

  it('starts a new trace for a call without a traceparent and still propagates it', async () => {
    const before = new Set(spansIn(collector.bodies).map((span) => span.traceId));
    await callTool(gateway.url, agent, 'x-2');
    const sent = String(downstream.seen.at(-1)!.traceparent).split('-');
    expect(sent[1]).toMatch(/^[0-9a-f]{32}$/);
    expect(before.has(sent[1]!)).toBe(false);
    await eventually(
      async () =>
        spansIn(collector.bodies).filter((span) => span.traceId === sent[1] && span.name === 'tollgate.tools/call'),
      (roots) => roots.length === 1 && roots[0]!.parentSpanId === undefined,
    );
  });
});

describe('tracing on shutdown (dist/main.js)', () => {
  it('exports the spans still queued when SIGTERM stops the gateway', async () => {
    const downstream = await startDownstream();
    const collector = await startCollector();
    // A batch delay far beyond the test: only the shutdown flush can deliver these spans.
    const gateway = await startGateway({
      downstreamUrl: downstream.url,
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_BSP_SCHEDULE_DELAY: '600000',
        OTEL_SERVICE_NAME: 'tollgate-edge',
      },
    });
    try {
      const agent = await agentFor(gateway);
      const traceId = hex(16);
      expect((await callTool(gateway.url, agent, 'x-9', { traceparent: `00-${traceId}-${hex(8)}-01` })).status).toBe(
        200,
      );
      expect(collector.bodies).toEqual([]);
      expect(await gateway.stop()).toBe(0);
      const root = spansIn(collector.bodies).find(
        (span) => span.traceId === traceId && span.name === 'tollgate.tools/call',
      );
      expect(root?.resource['service.name']).toBe('tollgate-edge');
    } finally {
      await gateway.stop();
      await downstream.close();
      await collector.close();
    }
  });
});

describe('tracing off (dist/main.js)', () => {
  let downstream: Awaited<ReturnType<typeof startDownstream>>;
  let collector: Awaited<ReturnType<typeof startCollector>>;
  const gateways: RunningProcess[] = [];

  beforeAll(async () => {
    downstream = await startDownstream();
    collector = await startCollector();
  });

  afterAll(async () => {
    await Promise.all(gateways.map((gateway) => gateway.stop()));
    await downstream?.close();
    await collector?.close();
  });

  it.each([
    ['no OTEL_* variables', {}],
    [
      'OTEL_SDK_DISABLED=true',
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'COLLECTOR', OTEL_SDK_DISABLED: 'true', OTEL_BSP_SCHEDULE_DELAY: '50' },
    ],
    [
      'OTEL_TRACES_EXPORTER=none',
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'COLLECTOR', OTEL_TRACES_EXPORTER: 'none', OTEL_BSP_SCHEDULE_DELAY: '50' },
    ],
  ])(
    'with %s: works, exports nothing, sends no traceparent downstream',
    async (_case, otel: Record<string, string>) => {
      const env = Object.fromEntries(
        Object.entries(otel).map(([key, value]) => [key, value === 'COLLECTOR' ? collector.url : value]),
      );
      const gateway = await startGateway({ downstreamUrl: downstream.url, env });
      gateways.push(gateway);
      const agent = await agentFor(gateway);

      const reply = await callTool(gateway.url, agent, 'x-3', { traceparent: `00-${hex(16)}-${hex(8)}-01` });
      expect(reply.status).toBe(200);
      expect(downstream.seen.at(-1)!.traceparent).toBeUndefined();
      // SIGTERM flushes whatever a tracing SDK would have queued.
      expect(await gateway.stop()).toBe(0);
      expect(collector.bodies).toEqual([]);
      expect(gateway.output()).not.toContain('tracing on');
    },
  );
});
