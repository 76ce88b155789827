import { countTokens } from '@tollgate/gateway-core/internal';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentAudit, countOutcomes } from './support/audit.js';
import type { ControlledDownstream } from './support/controlled-downstream.js';
import { HTTP_STATUS_DELIVERY } from './support/delivery.js';
import { GatewayClient } from './support/gateway-client.js';
import { sameOrigin, send, signInToDashboard } from './support/dashboard-session.js';
import { createAgentWithToken, openRawSession, rawCall, type McpExchange } from './support/mcp.js';
import { startPair, type Pair } from './support/pair.js';
import { eventually, type RunningProcess } from './support/processes.js';
import { redisServerAvailable } from './support/redis-guard.js';

const available = redisServerAvailable('the rate-limit tests');

/** One call every 10 s on average, three at once. */
const LIMIT = { callsPerMinute: 6, burst: 3 };
const CALLS = 8;

const callItem = (gatewayUrl: string, token: string, sessionId: string, id: number) =>
  rawCall(gatewayUrl, token, sessionId, 'tools/call', { name: 'get_item', arguments: { id } }, id);

/** The JSON-RPC error of a refused call, whichever delivery answered it (429 under http-status, 200 in-band under MCP's). */
const refusal = (reply: McpExchange) => (reply.message?.error ? reply.message.error : null);

/** Sum of `tollgate_tool_calls_total{outcome="<outcome>"}` over every tool. */
async function callsCounted(gateway: RunningProcess, admin: string, outcome: string): Promise<number> {
  const text = await (await fetch(`${gateway.url}/metrics`, { headers: { Authorization: `Bearer ${admin}` } })).text();
  let total = 0;
  for (const match of text.matchAll(/^tollgate_tool_calls_total\{([^}]*)\} (\d+)$/gm))
    if (match[1]!.includes(`outcome="${outcome}"`)) total += Number(match[2]);
  return total;
}

/**
 * Issue 18 item 5: a per-agent rate limit, enforced across two gateway
 * instances on one Redis (one atomic script on the server's clock), refused
 * like the budget (429 / -32029 with retryAfterSeconds), audited and counted,
 * set and cleared through the management API and the dashboard. One instance
 * answers with contract 7's HTTP statuses, the other with MCP's delivery.
 */
describe.runIf(available)('per-agent rate limit (dist/main.js × 2 on one Redis + controlled downstream)', () => {
  let pair: Pair<ControlledDownstream, true>;
  let statusDelivery: RunningProcess;
  let mcpDelivery: RunningProcess;
  let api: GatewayClient;
  let admin: string;

  beforeAll(async () => {
    const env = { Gw__Cache__Enabled: 'false' };
    pair = await startPair({
      downstream: 'controlled',
      redis: true,
      gateway: [{ env: { ...env, ...HTTP_STATUS_DELIVERY } }, { env }],
    });
    [statusDelivery, mcpDelivery] = [pair.gateways[0]!, pair.gateways[1]!];
    api = pair.api;
    admin = await pair.adminToken();
  });
  afterAll(() => pair?.stop());

  it(`lets exactly the burst through across both instances, refuses the rest with retryAfterSeconds, and lets one more through after the wait`, async () => {
    const agent = await createAgentWithToken(api, admin, {
      label: 'rate limited',
      dailyTokenBudget: 100_000,
      rateLimit: LIMIT,
    });
    expect((await api.request('GET', `/management/agents/${agent.agentId}`, admin)).body.rateLimit).toEqual(LIMIT);
    // One session serves both instances (it lives in Redis); initialize is not rate-limited.
    const { sessionId } = await openRawSession(statusDelivery.url, agent.token);
    const gateways = [statusDelivery.url, mcpDelivery.url];

    const replies = await Promise.all(
      Array.from({ length: CALLS }, (_, i) => callItem(gateways[i % 2]!, agent.token, sessionId, i + 1)),
    );
    const passed = replies.filter((reply) => reply.status === 200 && reply.message.result);
    const refused = replies.filter((reply) => refusal(reply) !== null);
    expect(passed).toHaveLength(LIMIT.burst);
    expect(refused).toHaveLength(CALLS - LIMIT.burst);
    for (const reply of refused) {
      const error = refusal(reply);
      expect(error).toMatchObject({
        code: -32029,
        data: { reason: 'rate-limited', callsPerMinute: 6, burst: 3, remaining: 0, resetsAt: expect.any(String) },
      });
      expect(error.data.retryAfterSeconds).toBeGreaterThanOrEqual(1);
      expect(error.data.retryAfterSeconds).toBeLessThanOrEqual(10);
    }
    // Contract 7's status, with the wait in Retry-After, from the instance that answers with statuses; in-band from the other.
    const byStatus = refused.filter((reply) => reply.status === 429);
    expect(byStatus.length + refused.filter((reply) => reply.status === 200).length).toBe(refused.length);
    for (const reply of byStatus)
      expect(reply.headers.get('retry-after')).toBe(String(refusal(reply).data.retryAfterSeconds));
    // ping and tools/list are not limited.
    expect((await rawCall(mcpDelivery.url, agent.token, sessionId, 'ping')).message.result).toEqual({});
    expect((await rawCall(statusDelivery.url, agent.token, sessionId, 'tools/list')).status).toBe(200);

    const wait = Math.max(...refused.map((reply) => refusal(reply).data.retryAfterSeconds as number));
    const waited = Date.now();
    await sleep(wait * 1000);
    const after = await callItem(mcpDelivery.url, agent.token, sessionId, 100);
    expect(after.message.result, `${Date.now() - waited} ms after a wait of ${wait} s`).toBeDefined();
    const next = await callItem(statusDelivery.url, agent.token, sessionId, 101);
    expect(next.status).toBe(429);
    expect(refusal(next).code).toBe(-32029);

    // Audited, counted, and not charged: the budget holds exactly what the passed calls returned.
    const records = await eventually(
      () => agentAudit(api, admin, agent.agentId),
      (found) => found.filter((record) => record.kind === 'tool-call').length === CALLS + 2,
    );
    const refusedCount = CALLS - LIMIT.burst + 1;
    expect(countOutcomes(records.filter((record) => record.kind === 'tool-call'))).toEqual({
      ok: LIMIT.burst + 1,
      'rate-limited': refusedCount,
    });
    for (const record of records.filter((r) => r.outcome === 'rate-limited'))
      expect(record).toMatchObject({ tool: 'get_item', httpStatus: 429, jsonRpcCode: -32029, tokensCharged: 0 });
    const counted = await eventually(
      async () =>
        (await callsCounted(statusDelivery, admin, 'rate-limited')) +
        (await callsCounted(mcpDelivery, admin, 'rate-limited')),
      (total) => total === refusedCount,
    );
    expect(counted).toBe(refusedCount);
    const charged = [...passed, after].reduce(
      (sum, reply) => sum + countTokens(reply.message.result.content[0].text),
      0,
    );
    const budget = await eventually(
      async () => (await api.request('GET', `/management/agents/${agent.agentId}/budget`, admin)).body,
      (body) => body.used === charged && body.remaining === 100_000 - charged,
    );
    expect(budget).toMatchObject({ used: charged, remaining: 100_000 - charged });
  });

  it('management API: sets, changes and clears the limit; refuses bad values with 400 naming the field', async () => {
    const bad = async (method: string, path: string, body: unknown) => {
      const reply = await api.request(method, path, admin, body);
      expect(reply.status, JSON.stringify(body)).toBe(400);
      // Each problem reads `<field path>: <message>`.
      return reply.body.errors.map((error: string) => error.slice(0, error.indexOf(': ')));
    };
    for (const [rateLimit, field] of [
      [{ callsPerMinute: 0, burst: 1 }, 'rateLimit.callsPerMinute'],
      [{ callsPerMinute: 2.5, burst: 1 }, 'rateLimit.callsPerMinute'],
      [{ callsPerMinute: 60_001, burst: 1 }, 'rateLimit.callsPerMinute'],
      [{ callsPerMinute: 10, burst: 0 }, 'rateLimit.burst'],
      [{ callsPerMinute: 10, burst: '3' }, 'rateLimit.burst'],
      [{ callsPerMinute: 10 }, 'rateLimit.burst'],
      [{ callsPerMinute: 10, burst: 1, perHour: 5 }, 'rateLimit'],
      ['fast', 'rateLimit'],
    ] as const) {
      expect(
        await bad('POST', '/management/agents', { label: 'x', dailyTokenBudget: 10, rateLimit }),
        JSON.stringify(rateLimit),
      ).toEqual([field]);
    }
    const agent = await createAgentWithToken(api, admin, { label: 'changed limits', dailyTokenBudget: 100_000 });
    const path = `/management/agents/${agent.agentId}`;
    expect((await api.request('GET', path, admin)).body.rateLimit).toBeNull();
    expect(await bad('PUT', path, { rateLimit: { callsPerMinute: -1, burst: 1 } })).toEqual([
      'rateLimit.callsPerMinute',
    ]);

    expect(
      (await api.request('PUT', path, admin, { rateLimit: { callsPerMinute: 60, burst: 1 } })).body.rateLimit,
    ).toEqual({ callsPerMinute: 60, burst: 1 });
    expect((await api.request('PUT', path, admin, { label: 'renamed' })).body.rateLimit).toEqual({
      callsPerMinute: 60,
      burst: 1,
    });
    const { sessionId } = await openRawSession(mcpDelivery.url, agent.token);
    expect((await callItem(mcpDelivery.url, agent.token, sessionId, 1)).message.result).toBeDefined();
    expect(refusal(await callItem(statusDelivery.url, agent.token, sessionId, 2))?.code).toBe(-32029);

    // Cleared: calls flow again at once, on both instances.
    expect((await api.request('PUT', path, admin, { rateLimit: null })).body.rateLimit).toBeNull();
    const replies = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        callItem([statusDelivery.url, mcpDelivery.url][i % 2]!, agent.token, sessionId, 10 + i),
      ),
    );
    expect(replies.map((reply) => refusal(reply)?.code ?? 'ok')).toEqual(Array(6).fill('ok'));
  });

  it('dashboard: the agent form sets, shows and clears the limit, and names a bad field', async () => {
    const agent = await api.createAgent(admin, { label: 'dashboard limits', dailyTokenBudget: 5000 });
    const { cookie, csrf } = await signInToDashboard(statusDelivery);
    const form = (fields: Record<string, string>) => ({
      _csrf: csrf,
      label: 'dashboard limits',
      dailyTokenBudget: '5000',
      toolAccess: 'all',
      ...fields,
    });
    const save = (fields: Record<string, string>) =>
      send(`${statusDelivery.url}/dashboard/agents/${agent.agentId}`, {
        cookie,
        form: form(fields),
        headers: sameOrigin(statusDelivery),
      });
    const limitOf = async () => (await api.request('GET', `/management/agents/${agent.agentId}`, admin)).body.rateLimit;

    expect((await save({ callsPerMinute: '12', burst: '4' })).status).toBe(303);
    expect(await limitOf()).toEqual({ callsPerMinute: 12, burst: 4 });
    const page = await send(`${statusDelivery.url}/dashboard/agents/${agent.agentId}`, { cookie });
    expect(page.text).toContain('Rate limit: 12 calls/min, burst 4');
    expect(page.text).toMatch(/name="callsPerMinute"[^>]*value="12"/);

    const refused = await save({ callsPerMinute: '12', burst: '0' });
    expect(refused.status).toBe(400);
    expect(refused.text).toMatch(/Burst: must be at least 1/);
    expect(await limitOf()).toEqual({ callsPerMinute: 12, burst: 4 });
    expect((await save({ callsPerMinute: '12', burst: '' })).text).toMatch(/Burst: must be a whole number/);

    expect((await save({ callsPerMinute: '', burst: '' })).status).toBe(303);
    expect(await limitOf()).toBeNull();

    // The create form: blank means the gateway's default (none configured here); filled, the limit.
    const created = await send(`${statusDelivery.url}/dashboard/agents`, {
      cookie,
      form: form({ label: 'made limited', callsPerMinute: '30', burst: '5' }),
      headers: sameOrigin(statusDelivery),
    });
    expect(created.status).toBe(303);
    const createdId = /\/dashboard\/agents\/(agt_[\w-]+)/.exec(created.location!)![1]!;
    expect((await api.request('GET', `/management/agents/${createdId}`, admin)).body.rateLimit).toEqual({
      callsPerMinute: 30,
      burst: 5,
    });
  });
});
