import { countTokens } from '@tollgate/gateway-core/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayClient } from './support/gateway-client.js';
import { createAgentWithToken, openRawSession, rawCall, type McpExchange, type TestAgent } from './support/mcp.js';
import { startPair, type Pair } from './support/pair.js';
import type { RunningProcess } from './support/processes.js';
import { HTTP_STATUS_DELIVERY } from './support/delivery.js';

/**
 * tools/call semantics against the built gateway and sample downstream:
 * budgets under concurrency, list/call agreement for allowlists and scopes,
 * and the maxResponseTokens cap (contract 5 rules 5-6, 7, 8).
 */
describe('tools/call: budget, access and truncation (dist/main.js + sample downstream)', () => {
  let pair: Pair;
  let downstream: RunningProcess;
  let url: string;
  let api: GatewayClient;
  let admin: string;

  beforeAll(async () => {
    // No per-agent concurrency limit: the budget tests send 100 calls at once and every one must reach the budget step.
    pair = await startPair({ gateway: { env: { ...HTTP_STATUS_DELIVERY, Gw__Mcp__MaxConcurrentCallsPerAgent: '0' } } });
    ({ downstream, url, api } = pair);
    admin = await pair.adminToken();
  });
  afterAll(() => pair?.stop());

  async function budgetOf(agentId: string): Promise<{ used: number; remaining: number; dailyTokenBudget: number }> {
    const reply = await api.request('GET', `/management/agents/${agentId}/budget`, admin);
    expect(reply.status).toBe(200);
    return reply.body;
  }

  const textOf = (reply: McpExchange): string => reply.message.result.content[0].text;

  describe('budget', () => {
    // list_orders with limit 300 is ~70 kB, always cut to the tool's 2000-token cap:
    // each call reserves 2000 and is charged at most that, so 20 000 allows about 10 calls.
    const BUDGET = 20_000;
    const CALLS = 100;

    it(`${CALLS} concurrent calls never spend past the budget; the refused get 429 / -32029; the budget endpoint agrees`, async () => {
      const agent = await createAgentWithToken(api, admin, {
        label: 'concurrent',
        dailyTokenBudget: BUDGET,
        scopes: ['orders:read'],
      });
      const { sessionId } = await openRawSession(url, agent.token);
      const replies = await Promise.all(
        Array.from({ length: CALLS }, (_, index) =>
          rawCall(
            url,
            agent.token,
            sessionId,
            'tools/call',
            { name: 'list_orders', arguments: { limit: 300 } },
            index + 1,
          ),
        ),
      );

      const served = replies.filter((reply) => reply.message.result !== undefined);
      const refused = replies.filter((reply) => reply.message.result === undefined);
      for (const reply of refused) {
        expect(reply.message).toMatchObject({ jsonrpc: '2.0', error: { code: -32029 } });
        // 429, unless the call waited long enough for admission (on a loaded machine) that its
        // stream had already started with keep-alives: then the refusal travels in it, under 200.
        expect(reply.status).toBe(reply.text.startsWith(': keep-alive') ? 200 : 429);
      }
      // Every answer went to the request it belongs to.
      expect(replies.map((reply) => reply.message.id)).toEqual(Array.from({ length: CALLS }, (_, index) => index + 1));

      const charged = served.map((reply) => countTokens(textOf(reply)));
      const total = charged.reduce((sum, tokens) => sum + tokens, 0);
      expect(total).toBeLessThanOrEqual(BUDGET);
      // About ten full calls fit; more may get the crumbs settled calls gave back (a
      // reservation is min(cap, what is left)), each charged at least a token, so the
      // crumbs bound how many: never a served call for free.
      const full = charged.filter((tokens) => tokens > 1000);
      expect(full.length).toBeGreaterThanOrEqual(9);
      expect(full.length).toBeLessThanOrEqual(10);
      expect(Math.min(...charged)).toBeGreaterThanOrEqual(1);
      const crumbs = BUDGET - full.reduce((sum, tokens) => sum + tokens, 0);
      expect(served.length - full.length).toBeLessThanOrEqual(crumbs);

      const budget = await budgetOf(agent.agentId);
      expect(budget).toMatchObject({ dailyTokenBudget: BUDGET, used: total, remaining: BUDGET - total });
    });

    it('charges the tokens of the returned text, call after call, until nothing is left', async () => {
      const agent = await createAgentWithToken(api, admin, { label: 'sequential', dailyTokenBudget: 300 });
      const { sessionId } = await openRawSession(url, agent.token);
      let total = 0;
      let last: McpExchange | undefined;
      for (let call = 0; call < 60; call += 1) {
        last = await rawCall(
          url,
          agent.token,
          sessionId,
          'tools/call',
          { name: 'get_order', arguments: { id: 1001 + call } },
          call,
        );
        if (last.status !== 200) break;
        const text = textOf(last);
        expect(() => JSON.parse(text)).not.toThrow();
        total += countTokens(text);
        expect(await budgetOf(agent.agentId)).toMatchObject({ used: total, remaining: 300 - total });
      }
      expect(last?.status).toBe(429);
      expect(last?.message.error.code).toBe(-32029);
      expect(total).toBe(300);
    });

    it('holds nothing for calls refused after the budget was reserved ahead (known agent, known tool)', async () => {
      const agent = await createAgentWithToken(api, admin, {
        label: 'refused',
        dailyTokenBudget: 5_000,
        allowedTools: ['get_order'],
      });
      const { sessionId } = await openRawSession(url, agent.token);
      // The first call makes the agent known: later calls reserve alongside authentication.
      const first = await rawCall(
        url,
        agent.token,
        sessionId,
        'tools/call',
        { name: 'get_order', arguments: { id: 1001 } },
        1,
      );
      expect(first.status).toBe(200);
      const charged = countTokens(textOf(first));
      const refusals = [
        await rawCall(
          url,
          agent.token,
          sessionId,
          'tools/call',
          { name: 'get_order', arguments: { id: 'not a number' } },
          2,
        ),
        await rawCall(
          url,
          agent.token,
          sessionId,
          'tools/call',
          { name: 'get_order', arguments: { id: 1001, extra: true } },
          3,
        ),
        await rawCall(url, agent.token, sessionId, 'tools/call', { name: 'list_orders', arguments: { limit: 1 } }, 4),
        await rawCall(
          url,
          agent.token,
          'A'.repeat(32),
          'tools/call',
          { name: 'get_order', arguments: { id: 1001 } },
          5,
        ),
      ];
      expect(refusals.map((reply) => reply.status)).toEqual([400, 400, 403, 404]);
      expect(await budgetOf(agent.agentId)).toMatchObject({ used: charged, remaining: 5_000 - charged });
    });
  });

  describe('allowlist and scopes: tools/list and tools/call agree', () => {
    /** Valid arguments per sample tool; a tool not listed here is called with {}. */
    const ARGUMENTS: Record<string, Record<string, unknown>> = {
      list_customers: { limit: 2 },
      get_customer: { id: 1 },
      create_customer: { name: 'Grace Hopper', email: `grace-${Date.now()}@example.com` },
      update_customer_contact: { id: 2, city: 'Porto' },
      list_orders: { limit: 2 },
      get_order: { id: 1001 },
      quote_order: { lines: [{ sku: 'KB-100', quantity: 1 }] },
      place_order: { customerId: 1, lines: [{ sku: 'MS-210', quantity: 1 }] },
      cancel_order: { id: 1002 },
      search_products: { q: 'mouse' },
      get_product: { sku: 'KB-100' },
    };

    let allTools: string[];
    beforeAll(async () => {
      const schema = (await fetch(`${downstream.url}/gw/schema`).then((response) => response.json())) as Array<{
        name: string;
      }>;
      allTools = schema.map((tool) => tool.name);
      expect(allTools).toEqual(expect.arrayContaining(Object.keys(ARGUMENTS)));
    });

    /** What tools/list shows this token, and which tools tools/call lets through (anything but 403). */
    async function listedAndCallable(token: string): Promise<{ listed: string[]; callable: string[] }> {
      const { sessionId } = await openRawSession(url, token, '2025-06-18');
      const list = await rawCall(url, token, sessionId, 'tools/list');
      expect(list.status).toBe(200);
      const listed = (list.message.result.tools as Array<{ name: string }>).map((tool) => tool.name);
      const callable: string[] = [];
      for (const name of allTools) {
        const reply = await rawCall(url, token, sessionId, 'tools/call', { name, arguments: ARGUMENTS[name] ?? {} });
        if (reply.status === 403) {
          expect(reply.message.error.code).toBe(-32003);
          continue;
        }
        // Authorized: served, or refused for reasons after authorization (arguments, downstream).
        expect([200, 400, 502]).toContain(reply.status);
        if (reply.status !== 200) expect(reply.message.error.code).not.toBe(-32003);
        if (name in ARGUMENTS && !['cancel_order', 'create_customer'].includes(name)) expect(reply.status).toBe(200);
        callable.push(name);
      }
      return { listed: listed.sort(), callable: callable.sort() };
    }

    it.each([
      ['no scopes, no allowlist', { scopes: [] }],
      [
        'every sample scope',
        { scopes: ['customers:read', 'customers:write', 'orders:read', 'orders:write', 'catalog:write'] },
      ],
      [
        'an allowlist narrower than the scopes',
        {
          allowedTools: ['get_order', 'list_orders', 'place_order'],
          scopes: ['orders:read', 'orders:write', 'customers:read'],
        },
      ],
      [
        'an allowlist wider than the scopes',
        {
          allowedTools: ['get_customer', 'list_orders', 'place_order', 'quote_order', 'get_product'],
          scopes: ['customers:read'],
        },
      ],
      ['an empty allowlist (all tools)', { allowedTools: [], scopes: ['orders:read'] }],
    ])('with %s, every listed tool is callable and every hidden one is refused', async (label, settings) => {
      const agent = await createAgentWithToken(api, admin, { label, dailyTokenBudget: 1_000_000, ...settings });
      const { listed, callable } = await listedAndCallable(agent.token);
      expect(listed.length).toBeGreaterThan(0);
      expect(callable).toEqual(listed);
      // quote_order is a POST without allowWrite: nobody sees or calls it.
      expect(listed).not.toContain('quote_order');
      const allowlist = (settings as { allowedTools?: string[] }).allowedTools;
      if (allowlist !== undefined && allowlist.length > 0) for (const name of listed) expect(allowlist).toContain(name);
    });

    it('with the allowlist narrower than the scopes, lists exactly the allowed tools whose scopes the token has', async () => {
      const agent = await createAgentWithToken(api, admin, {
        label: 'exact',
        dailyTokenBudget: 1_000_000,
        allowedTools: ['get_customer', 'list_orders', 'place_order', 'quote_order', 'get_product'],
        scopes: ['customers:read'],
      });
      expect((await listedAndCallable(agent.token)).listed).toEqual(['get_customer', 'get_product']);
    });

    it('takes scopes from the token: scopes added to the agent later need a new token', async () => {
      const agent = await createAgentWithToken(api, admin, { label: 'rescoped', dailyTokenBudget: 1_000_000 });
      const updated = await api.request('PUT', `/management/agents/${agent.agentId}`, admin, {
        scopes: ['orders:read'],
      });
      expect(updated.status).toBe(200);
      const oldToken = await listedAndCallable(agent.token);
      expect(oldToken.listed).not.toContain('list_orders');
      expect(oldToken.callable).not.toContain('list_orders');

      const newToken = await listedAndCallable(await api.agentToken(admin, agent.agentId));
      expect(newToken.listed).toContain('list_orders');
      expect(newToken.callable).toContain('list_orders');
    });
  });

  describe('maxResponseTokens', () => {
    let reader: TestAgent;
    let allOrders: Array<Record<string, unknown>>;

    beforeAll(async () => {
      reader = await createAgentWithToken(api, admin, {
        label: 'truncation',
        dailyTokenBudget: 1_000_000,
        scopes: ['orders:read'],
      });
      const full = await fetch(`${downstream.url}/orders?limit=300`).then((response) => response.json());
      allOrders = (full as { orders: Array<Record<string, unknown>> }).orders;
      expect(countTokens(JSON.stringify(full))).toBeGreaterThan(2000);
    });

    it('cuts a response over the cap to valid JSON within the cap, marking the cut, keeping a prefix', async () => {
      const { sessionId } = await openRawSession(url, reader.token, '2025-06-18');
      const reply = await rawCall(url, reader.token, sessionId, 'tools/call', {
        name: 'list_orders',
        arguments: { limit: 300 },
      });
      expect(reply.status).toBe(200);
      const text = textOf(reply);
      expect(countTokens(text)).toBeLessThanOrEqual(2000);
      expect(countTokens(text)).toBeGreaterThan(1500);
      const value = JSON.parse(text);
      expect(value._truncated).toMatchObject({
        reason: 'maxResponseTokens',
        maxTokens: 2000,
        originalBytes: expect.any(Number),
      });
      expect(value._truncated.cuts.length).toBeGreaterThan(0);
      const kept = value.data.orders as unknown[];
      expect(kept.length).toBeGreaterThan(0);
      expect(kept.length).toBeLessThan(300);
      // Whole orders from the front survive unchanged (only the last kept one may be shortened).
      expect(kept.slice(0, -1)).toEqual(allOrders.slice(0, kept.length - 1));
      expect(reply.message.result.structuredContent).toEqual(value);
    });

    it('cuts to what is left of the budget when that is below the cap, and charges exactly that text', async () => {
      const agent = await createAgentWithToken(api, admin, {
        label: 'small budget',
        dailyTokenBudget: 500,
        scopes: ['orders:read'],
      });
      const { sessionId } = await openRawSession(url, agent.token);
      const reply = await rawCall(url, agent.token, sessionId, 'tools/call', {
        name: 'list_orders',
        arguments: { limit: 300 },
      });
      expect(reply.status).toBe(200);
      const text = textOf(reply);
      expect(countTokens(text)).toBeLessThanOrEqual(500);
      expect(JSON.parse(text)._truncated).toMatchObject({ reason: 'maxResponseTokens', maxTokens: 500 });
      expect(await budgetOf(agent.agentId)).toMatchObject({ used: countTokens(text) });
    });

    it('leaves a response within the cap untouched', async () => {
      const { sessionId } = await openRawSession(url, reader.token);
      const reply = await rawCall(url, reader.token, sessionId, 'tools/call', {
        name: 'list_orders',
        arguments: { limit: 3 },
      });
      const value = JSON.parse(textOf(reply));
      expect(value._truncated).toBeUndefined();
      expect(value.orders).toEqual(allOrders.slice(0, 3));
    });
  });
});
