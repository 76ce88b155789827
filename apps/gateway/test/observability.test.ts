import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayClient } from './support/gateway-client.js';
import { createAgentWithToken, mcpRaw, openRawSession, rawCall, type TestAgent } from './support/mcp.js';
import { startPair, type Pair } from './support/pair.js';
import { eventually, freePort, type RunningProcess } from './support/processes.js';

describe('observability (dist/main.js + sample downstream)', () => {
  let pair: Pair;
  let gateway: RunningProcess;
  let client: GatewayClient;
  let admin: string;
  let agent: TestAgent;
  let metricsPort: number;

  beforeAll(async () => {
    metricsPort = await freePort();
    pair = await startPair({ gateway: { env: { Gw__Metrics__Port: String(metricsPort) } } });
    ({ gateway, api: client } = pair);
    admin = await pair.adminToken();
    agent = await createAgentWithToken(client, admin, { label: 'observed', dailyTokenBudget: 100_000 });
  });

  afterAll(() => pair?.stop());

  it('answers tools/call with Server-Timing (gateway and downstream) and echoes a sane X-Request-Id', async () => {
    const { sessionId } = await openRawSession(gateway.url, agent.token);
    const reply = await mcpRaw(
      gateway.url,
      { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'get_product', arguments: { sku: 'KB-100' } } },
      { token: agent.token, sessionId, headers: { 'X-Request-Id': 'trace-me-123' } },
    );
    expect(reply.status).toBe(200);
    expect(reply.headers.get('x-request-id')).toBe('trace-me-123');
    expect(reply.headers.get('server-timing')).toMatch(/^gateway;dur=\d+\.\d{2}, downstream;dur=\d+\.\d{2}$/);
    const forged = await mcpRaw(
      gateway.url,
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { token: agent.token, sessionId, headers: { 'X-Request-Id': 'a"} <b>' } },
    );
    expect(forged.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('puts the request id on the access log line and on the audit record of that call', async () => {
    const { sessionId } = await openRawSession(gateway.url, agent.token);
    await mcpRaw(
      gateway.url,
      {
        jsonrpc: '2.0',
        id: 8,
        method: 'tools/call',
        params: { name: 'search_products', arguments: { q: 'keyboard' } },
      },
      { token: agent.token, sessionId, headers: { 'X-Request-Id': 'audit-join-42' } },
    );
    const lines = () =>
      gateway
        .output()
        .split('\n')
        .filter((line) => line.includes('audit-join-42'));
    await eventually(
      async () => lines(),
      (found) => found.some((line) => line.includes('"msg":"audit"')),
    );
    const access = lines()
      .map((line) => JSON.parse(line))
      .find((entry) => entry.msg === 'request');
    expect(access).toMatchObject({ requestId: 'audit-join-42', method: 'POST', path: '/mcp', status: 200 });
    const page = await client.request('GET', `/management/agents/${agent.agentId}/audit?tool=search_products`, admin);
    expect(page.body.records[0]).toMatchObject({
      requestId: 'audit-join-42',
      outcome: expect.stringMatching(/^(ok|cache-hit)$/),
    });
  });

  it('serves Prometheus metrics behind an admin token, and without one on Gw:Metrics:Port', async () => {
    const { sessionId } = await openRawSession(gateway.url, agent.token);
    await rawCall(gateway.url, agent.token, sessionId, 'tools/call', {
      name: 'get_product',
      arguments: { sku: 'KB-100' },
    });
    expect((await fetch(`${gateway.url}/metrics`)).status).toBe(401);
    expect(
      (await fetch(`${gateway.url}/metrics`, { headers: { Authorization: `Bearer ${agent.token}` } })).status,
    ).toBe(401);
    const withAdmin = await fetch(`${gateway.url}/metrics`, { headers: { Authorization: `Bearer ${admin}` } });
    expect(withAdmin.status).toBe(200);
    const text = await withAdmin.text();
    expect(text).toMatch(/tollgate_tool_calls_total\{tool="get_product",outcome="(ok|cache-hit)"\} \d+/);
    expect(text).toContain('tollgate_breaker_state 0');
    expect(text).toMatch(/tollgate_gateway_added_seconds_count\{tool="get_product"\} \d+/);
    const open = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(open.status).toBe(200);
    expect(await open.text()).toContain('tollgate_tool_calls_total');
  });
  it('lets an idle gateway sleep: its main thread wakes ~10 times a second, not at the metrics sampler’s 10 ms', async () => {
    // Each wake-up from epoll is one voluntary context switch of the main thread; prom-client's default
    // event-loop-lag sampler (10 ms) alone made 100 a second, nearly all of an idle gateway's CPU.
    const pid = gateway.child.pid;
    const switches = async () => {
      const status = await readFile(`/proc/${pid}/task/${pid}/status`, 'utf8');
      return Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1]);
    };
    await sleep(500); // what the earlier tests left running (audit writes, idle sessions) settles
    const before = await switches();
    const start = performance.now();
    await sleep(3000);
    const perSecond = ((await switches()) - before) / ((performance.now() - start) / 1000);
    expect(perSecond).toBeGreaterThan(0);
    expect(perSecond).toBeLessThan(40);
  });
});
