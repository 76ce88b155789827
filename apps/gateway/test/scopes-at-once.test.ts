import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayClient } from './support/gateway-client.js';
import { createAgentWithToken, openRawSession, rawCall, type McpExchange, type TestAgent } from './support/mcp.js';
import { startPair, type Pair } from './support/pair.js';
import type { RunningProcess } from './support/processes.js';
import { redisServerAvailable } from './support/redis-guard.js';

const available = redisServerAvailable('the scopes-at-once tests');

const ARGUMENTS: Record<string, Record<string, unknown>> = {
  list_orders: { limit: 1 }, // orders:read
  get_customer: { id: 1 }, // customers:read
  get_product: { sku: 'KB-100' }, // no scope
  place_order: { customerId: 1, lines: [{ sku: 'MS-210', quantity: 1 }] }, // orders:write; refused here, never placed
};

/**
 * Issue 16 item 2 on two gateway processes sharing one Redis: a call needs
 * each required scope both in its token and in the agent's current record.
 * With one token issued before every change, removing a scope, narrowing the
 * allowlist and deactivating each take effect on the very next request on
 * both instances (no waiting: the record is read per request), tools/list
 * follows, and a scope added to the record does not widen the older token.
 */
describe.runIf(available)('agent changes take effect at once on two gateways on one Redis', () => {
  let pair: Pair<RunningProcess, true>;
  let gateways: [RunningProcess, RunningProcess];
  let apis: [GatewayClient, GatewayClient];
  let admin: string;

  beforeAll(async () => {
    pair = await startPair({ redis: true, instances: 2 });
    gateways = [pair.gateways[0]!, pair.gateways[1]!];
    apis = [new GatewayClient(gateways[0].url), new GatewayClient(gateways[1].url)];
    admin = await pair.adminToken();
  });
  afterAll(() => pair?.stop());

  /** One session per instance for the token, so every check runs on both. */
  async function sessionsFor({
    token,
  }: TestAgent): Promise<
    Array<{ instance: number; call: (method: string, params?: Record<string, unknown>) => Promise<McpExchange> }>
  > {
    return Promise.all(
      gateways.map(async (gateway, instance) => {
        const { sessionId } = await openRawSession(gateway.url, token, '2025-06-18');
        return {
          instance,
          call: (method: string, params: Record<string, unknown> = {}) =>
            rawCall(gateway.url, token, sessionId, method, params),
        };
      }),
    );
  }
  type Session = Awaited<ReturnType<typeof sessionsFor>>[number];

  const listed = async (session: Session): Promise<string[]> => {
    const reply = await session.call('tools/list');
    expect(reply.status).toBe(200);
    return (reply.message.result.tools as Array<{ name: string }>).map((tool) => tool.name).sort();
  };
  const callTool = (session: Session, name: string) => session.call('tools/call', { name, arguments: ARGUMENTS[name] });
  /** Served: HTTP 200 with a result that is not a tool error. */
  const served = (reply: McpExchange) => ({
    status: reply.status,
    error: reply.message?.error,
    isError: reply.message?.result?.isError ?? false,
  });
  const update = async (via: GatewayClient, agentId: string, patch: Record<string, unknown>) => {
    const reply = await via.request('PUT', `/management/agents/${agentId}`, admin, patch);
    expect(reply.status).toBe(200);
  };

  it('a scope removed from the agent stops the older token on the next call on both instances; added back, it works again', async () => {
    const agent = await createAgentWithToken(apis[0], admin, {
      label: 'rescoped',
      dailyTokenBudget: 1_000_000,
      scopes: ['orders:read', 'customers:read'],
    });
    const sessions = await sessionsFor(agent);
    for (const session of sessions) {
      expect(await listed(session)).toEqual(expect.arrayContaining(['get_customer', 'get_product', 'list_orders']));
      expect({ instance: session.instance, ...served(await callTool(session, 'list_orders')) }).toEqual({
        instance: session.instance,
        status: 200,
        error: undefined,
        isError: false,
      });
    }

    // Changed through the second instance: nothing is local to the one that served the token.
    await update(apis[1], agent.agentId, { scopes: ['customers:read'] });
    for (const session of sessions) {
      const refused = await callTool(session, 'list_orders');
      expect({ instance: session.instance, status: refused.status, error: refused.message.error }).toEqual({
        instance: session.instance,
        status: 200, // refusals are in-band under the default Gw:Mcp:ErrorDelivery=mcp
        error: {
          code: -32003,
          message: 'Tool list_orders requires scopes the agent does not hold: orders:read',
          data: { reason: 'missing-scopes', missingScopes: ['orders:read'] },
        },
      });
      const tools = await listed(session);
      expect(tools).not.toContain('list_orders');
      expect(tools).toEqual(expect.arrayContaining(['get_customer', 'get_product']));
      expect(served(await callTool(session, 'get_customer'))).toMatchObject({
        status: 200,
        error: undefined,
        isError: false,
      });
    }

    await update(apis[0], agent.agentId, { scopes: ['customers:read', 'orders:read'] });
    for (const session of sessions) {
      expect(await listed(session)).toContain('list_orders');
      expect(served(await callTool(session, 'list_orders'))).toMatchObject({
        status: 200,
        error: undefined,
        isError: false,
      });
    }
  });

  it('a scope added to the agent does not widen a token issued before; a new token has it', async () => {
    const agent = await createAgentWithToken(apis[0], admin, {
      label: 'widened',
      dailyTokenBudget: 1_000_000,
      scopes: ['orders:read'],
    });
    const sessions = await sessionsFor(agent);
    await update(apis[1], agent.agentId, { scopes: ['orders:read', 'orders:write'] });
    for (const session of sessions) {
      expect(await listed(session)).not.toContain('place_order');
      const refused = await callTool(session, 'place_order');
      expect(refused.message.error).toEqual({
        code: -32003,
        message: 'Tool place_order requires scopes the token does not carry: orders:write',
        data: { reason: 'missing-scopes', missingScopes: ['orders:write'] },
      });
    }
    const renewed = await sessionsFor({ ...agent, token: await apis[1].agentToken(admin, agent.agentId) });
    for (const session of renewed) expect(await listed(session)).toContain('place_order');
  });

  it('a narrowed allowlist refuses and hides the other tools on the next call on both instances', async () => {
    const agent = await createAgentWithToken(apis[0], admin, {
      label: 'narrowed',
      dailyTokenBudget: 1_000_000,
      scopes: ['customers:read'],
    });
    const sessions = await sessionsFor(agent);
    for (const session of sessions)
      expect(served(await callTool(session, 'get_customer'))).toMatchObject({
        status: 200,
        error: undefined,
        isError: false,
      });

    await update(apis[1], agent.agentId, { allowedTools: ['get_product'] });
    for (const session of sessions) {
      const refused = await callTool(session, 'get_customer');
      expect(refused.message.error).toMatchObject({
        code: -32003,
        message: expect.stringMatching(/not in this agent's allowed tools/),
        data: { reason: 'not-allowlisted' },
      });
      expect(await listed(session)).toEqual(['get_product']);
      expect(served(await callTool(session, 'get_product'))).toMatchObject({
        status: 200,
        error: undefined,
        isError: false,
      });
    }
  });

  it('deactivating refuses the token with 401 on the next call and list on both instances', async () => {
    const agent = await createAgentWithToken(apis[0], admin, { label: 'deactivated', dailyTokenBudget: 1_000_000 });
    const sessions = await sessionsFor(agent);
    for (const session of sessions)
      expect(served(await callTool(session, 'get_product'))).toMatchObject({ status: 200, error: undefined });

    await update(apis[1], agent.agentId, { isActive: false });
    for (const session of sessions) {
      for (const reply of [await callTool(session, 'get_product'), await session.call('tools/list')]) {
        expect({ instance: session.instance, status: reply.status, code: reply.message?.error?.code }).toEqual({
          instance: session.instance,
          status: 401,
          code: -32001,
        });
      }
    }
  });
});
