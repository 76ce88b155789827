import { countTokens } from '@tollgate/gateway-core/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayClient } from './support/gateway-client.js';
import {
  connectSdkClient,
  createAgentWithToken,
  mcpRaw,
  openRawSession,
  rawCall,
  resultJson,
  type TestAgent,
} from './support/mcp.js';
import { startPair, type Pair } from './support/pair.js';
import type { RunningProcess } from './support/processes.js';
import { redisServerAvailable } from './support/redis-guard.js';
import { HTTP_STATUS_DELIVERY } from './support/delivery.js';

const available = redisServerAvailable('the MCP shared-session tests');

/**
 * Two gateway processes on one Redis: a session opened on one is served by
 * the other, ended on either, and the budget is one budget (contract 3.2; sessions
 * live in the store so any instance can serve them).
 */
describe.runIf(available)('MCP sessions shared by two gateways on one Redis', () => {
  let pair: Pair<RunningProcess, true>;
  let first: RunningProcess;
  let second: RunningProcess;
  let alice: TestAgent;
  let bob: TestAgent;
  let api: GatewayClient;
  let admin: string;

  beforeAll(async () => {
    pair = await startPair({ redis: true, instances: 2, gateway: { env: HTTP_STATUS_DELIVERY } });
    [first, second] = [pair.gateways[0]!, pair.gateways[1]!];
    api = pair.api;
    admin = await pair.adminToken();
    alice = await createAgentWithToken(api, admin, { label: 'alice', dailyTokenBudget: 100_000 });
    bob = await createAgentWithToken(api, admin, { label: 'bob', dailyTokenBudget: 100_000 });
  });
  afterAll(() => pair?.stop());

  it('serves a session opened on one gateway on the other, and ends it on either', async () => {
    const { sessionId } = await openRawSession(first.url, alice.token, '2025-06-18');
    const listed = await rawCall(second.url, alice.token, sessionId, 'tools/list');
    expect(listed.status).toBe(200);
    // The negotiated version travels with the session: annotations are 2025-03-26+ only.
    expect(
      listed.message.result.tools.find((tool: { name: string }) => tool.name === 'get_order').annotations,
    ).toMatchObject({ readOnlyHint: true });
    const called = await rawCall(second.url, alice.token, sessionId, 'tools/call', {
      name: 'get_order',
      arguments: { id: 1001 },
    });
    expect(called.message.result.structuredContent).toMatchObject({ id: 1001 });

    expect((await mcpRaw(second.url, undefined, { method: 'DELETE', token: alice.token, sessionId })).status).toBe(204);
    expect((await rawCall(first.url, alice.token, sessionId, 'ping')).status).toBe(404);
  });

  it("refuses another agent's session on every instance with 404", async () => {
    const { sessionId } = await openRawSession(first.url, alice.token);
    for (const gateway of [first, second]) {
      const reply = await rawCall(gateway.url, bob.token, sessionId, 'tools/list');
      expect(reply.status).toBe(404);
      expect(reply.message.error.code).toBe(-32600);
    }
  });

  it('keeps one budget under concurrent calls spread over both instances', async () => {
    const BUDGET = 10_000;
    const agent = await createAgentWithToken(api, admin, {
      label: 'spread',
      dailyTokenBudget: BUDGET,
      scopes: ['orders:read'],
    });
    const { sessionId } = await openRawSession(first.url, agent.token);
    const replies = await Promise.all(
      Array.from({ length: 60 }, (_, index) =>
        rawCall(
          index % 2 === 0 ? first.url : second.url,
          agent.token,
          sessionId,
          'tools/call',
          { name: 'list_orders', arguments: { limit: 300 } },
          index,
        ),
      ),
    );
    // A call that waits for budget past the 5 s keep-alive has started its stream (HTTP 200) before it is
    // refused, so its -32029 arrives inside that stream: the delivery rule, not a served call.
    const served = replies.filter((reply) => reply.status === 200 && reply.message.result !== undefined);
    for (const reply of replies.filter((reply) => !served.includes(reply))) {
      expect([200, 429]).toContain(reply.status);
      expect(reply.message.error.code).toBe(-32029);
    }
    const total = served.reduce((sum, reply) => sum + countTokens(reply.message.result.content[0].text), 0);
    expect(served.length).toBeGreaterThanOrEqual(5);
    expect(total).toBeLessThanOrEqual(BUDGET);
    const budget = (await api.request('GET', `/management/agents/${agent.agentId}/budget`, admin)).body;
    expect(budget).toMatchObject({ used: total, remaining: BUDGET - total });
  });

  it('lets the SDK client alternate between instances in one session, charging one budget', async () => {
    const client = await connectSdkClient(first.url, alice.token);
    try {
      const sessionId = (client.transport as { sessionId?: string }).sessionId!;
      const before = (await api.request('GET', `/management/agents/${alice.agentId}/budget`, admin)).body
        .used as number;
      const viaFirst = await client.callTool({ name: 'get_product', arguments: { sku: 'KB-100' } });
      const viaSecond = await rawCall(second.url, alice.token, sessionId, 'tools/call', {
        name: 'get_product',
        arguments: { sku: 'MS-210' },
      });
      expect(resultJson(viaFirst)).toMatchObject({ sku: 'KB-100' });
      expect(resultJson(viaSecond.message.result)).toMatchObject({ sku: 'MS-210' });
      const spent =
        countTokens((viaFirst.content as Array<{ text: string }>)[0]!.text) +
        countTokens(viaSecond.message.result.content[0].text);
      const seenBySecond = await new GatewayClient(second.url).request(
        'GET',
        `/management/agents/${alice.agentId}/budget`,
        admin,
      );
      expect(seenBySecond.body.used).toBe(before + spent);
    } finally {
      await client.close();
    }
  });
});
