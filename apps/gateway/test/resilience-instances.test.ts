import { countTokens } from '@tollgate/gateway-core/internal';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COUNT_ITEMS, CREATE_ITEM, GET_ITEM, type ControlledDownstream } from './support/controlled-downstream.js';
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
import { startPair, type Pair } from './support/pair.js';
import { eventually, startGateway, type RunningProcess } from './support/processes.js';
import { redisServerAvailable } from './support/redis-guard.js';
import { HTTP_STATUS_DELIVERY } from './support/delivery.js';

const available = redisServerAvailable('the many-instances tests');

const AGENTS = 200;
const CALLS_PER_AGENT = 10;
const IN_FLIGHT = 32;
/** get_item answers ~15 tokens: three calls fit, the fourth is cut to what is left, the rest are refused. */
const BUDGET = 55;

/** Runs the tasks with at most `limit` in flight; results in task order. */
async function inPool<T>(tasks: Array<() => Promise<T>>, limit: number): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const lane = async () => {
    while (next < tasks.length) {
      const index = next++;
      results[index] = await tasks[index]!();
    }
  };
  await Promise.all(Array.from({ length: limit }, lane));
  return results;
}

const toolNames = (reply: McpExchange): string[] =>
  reply.message.result.tools.map((tool: { name: string }) => tool.name).sort();

/**
 * Two gateway processes on one Redis (issue 6, many instances): one budget
 * per agent under load spread over both, and one tool registry that follows
 * the downstream's `/gw/schema` on demand, across instances and periodically.
 */
describe.runIf(available)('many instances on one Redis (dist/main.js × 2 + controlled downstream)', () => {
  let pair: Pair<ControlledDownstream, true>;
  let downstream: ControlledDownstream;
  let first: RunningProcess;
  let second: RunningProcess;
  let api: GatewayClient;
  let admin: string;

  beforeAll(async () => {
    pair = await startPair({
      downstream: 'controlled',
      redis: true,
      instances: 2,
      gateway: { env: { ...HTTP_STATUS_DELIVERY, Gw__Cache__Enabled: 'false' } },
    });
    ({ downstream, api } = pair);
    [first, second] = [pair.gateways[0]!, pair.gateways[1]!];
    admin = await pair.adminToken();
  });
  afterAll(() => pair?.stop());

  it(`${AGENTS} agents × ${CALLS_PER_AGENT} calls spread over both instances: no 5xx, no budget overshoot, exact charges`, async () => {
    const gateways = [first.url, second.url];
    const started = performance.now();
    const agents = await inPool(
      Array.from({ length: AGENTS }, (_, index) => async () => {
        const agent = await createAgentWithToken(api, admin, { label: `load ${index}`, dailyTokenBudget: BUDGET });
        const { sessionId } = await openRawSession(gateways[index % 2]!, agent.token);
        return { ...agent, sessionId };
      }),
      16,
    );
    const setupMs = performance.now() - started;

    // Call k of every agent before call k+1 of any, each on the instance the session was not opened on half the time.
    const calls = Array.from({ length: AGENTS * CALLS_PER_AGENT }, (_, index) => ({
      agent: index % AGENTS,
      call: Math.floor(index / AGENTS),
    }));
    const replies = await inPool(
      calls.map(({ agent, call }) => () => {
        const { token, sessionId } = agents[agent]!;
        return rawCall(
          gateways[(agent + call) % 2]!,
          token,
          sessionId,
          'tools/call',
          { name: 'get_item', arguments: { id: call } },
          call + 1,
        );
      }),
      IN_FLIGHT,
    );
    const loadMs = performance.now() - started - setupMs;

    const statuses: Record<number, number> = {};
    for (const reply of replies) statuses[reply.status] = (statuses[reply.status] ?? 0) + 1;
    console.info(
      `load: setup ${Math.round(setupMs)} ms, ${replies.length} calls in ${Math.round(loadMs)} ms, statuses ${JSON.stringify(statuses)}`,
    );
    expect(Object.keys(statuses).sort()).toEqual(['200', '429']);
    for (const reply of replies.filter((r) => r.status === 429)) expect(reply.message.error.code).toBe(-32029);

    const budgets = await inPool(
      agents.map((agent) => () => api.request('GET', `/management/agents/${agent.agentId}/budget`, admin)),
      16,
    );
    agents.forEach((agent, index) => {
      const mine = replies.filter((_, call) => calls[call]!.agent === index);
      const charged = mine
        .filter((r) => r.status === 200)
        .reduce((sum, r) => sum + countTokens(r.message.result.content[0].text), 0);
      const budget = budgets[index]!.body;
      expect(budget.used, agent.agentId).toBeLessThanOrEqual(BUDGET);
      expect(budget.used, agent.agentId).toBe(charged);
    });
  });

  describe('tool registry refresh', () => {
    let agent: TestAgent;
    let sessionId: string;

    beforeAll(async () => {
      agent = await createAgentWithToken(api, admin, { label: 'refresh', dailyTokenBudget: 100_000 });
      ({ sessionId } = await openRawSession(first.url, agent.token));
    });

    const list = (gatewayUrl: string) => rawCall(gatewayUrl, agent.token, sessionId, 'tools/list');

    it('POST /management/tools/refresh picks up a new tool without dropping a call in flight; the other instance follows', async () => {
      expect(toolNames(await list(first.url))).toEqual(['create_item', 'get_item']);
      downstream.delayMs = 1500;
      try {
        const slow = rawCall(
          first.url,
          agent.token,
          sessionId,
          'tools/call',
          { name: 'get_item', arguments: { id: 999 } },
          90,
        );
        await eventually(
          async () => downstream.hitsOn('/items/999'),
          (hits) => hits === 1,
          2000,
        );

        downstream.tools = [GET_ITEM, CREATE_ITEM, COUNT_ITEMS];
        const refreshed = await api.request('POST', '/management/tools/refresh', admin);
        expect(refreshed.status).toBe(200);
        expect(refreshed.body.tools.sort()).toEqual(['count_items', 'create_item', 'get_item']);
        expect(toolNames(await list(first.url))).toEqual(['count_items', 'create_item', 'get_item']);

        const finished = await slow;
        expect(finished.status).toBe(200);
        expect(resultJson(finished.message.result)).toMatchObject({ id: 999 });
      } finally {
        downstream.delayMs = 0;
      }
      const called = await rawCall(first.url, agent.token, sessionId, 'tools/call', {
        name: 'count_items',
        arguments: {},
      });
      expect(resultJson(called.message.result)).toEqual({ count: 42 });

      // The other instance reads the store's registry generation every 5 s.
      const followed = performance.now();
      await eventually(
        () => list(second.url),
        (reply) => toolNames(reply).includes('count_items'),
        8000,
      );
      console.info(`second instance followed the refresh after ${Math.round(performance.now() - followed)} ms`);
      expect(
        (await rawCall(second.url, agent.token, sessionId, 'tools/call', { name: 'count_items', arguments: {} }))
          .status,
      ).toBe(200);
    });

    it('refuses a refresh with the downstream down (502 problem) and keeps the current tools', async () => {
      const before = toolNames(await list(first.url));
      await downstream.kill();
      try {
        const refused = await api.request('POST', '/management/tools/refresh', admin);
        expect(refused.status).toBe(502);
        expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(refused.body).toMatchObject({ status: 502, detail: expect.stringMatching(/current tools stay/) });
        expect(toolNames(await list(first.url))).toEqual(before);
      } finally {
        await downstream.start();
      }
    });

    it('refuses a refresh without an admin token', async () => {
      expect((await api.request('POST', '/management/tools/refresh', undefined)).status).toBe(401);
      expect((await api.request('POST', '/management/tools/refresh', agent.token)).status).toBe(401);
    });

    it('refreshes periodically with Gw:ToolRegistry:RefreshSeconds', async () => {
      downstream.tools = [GET_ITEM, CREATE_ITEM, COUNT_ITEMS];
      const periodic = await startGateway({
        downstreamUrl: downstream.url,
        env: { ...HTTP_STATUS_DELIVERY, Gw__ToolRegistry__RefreshSeconds: '1' },
      });
      try {
        await waitUntilReady(periodic.url);
        const client = new GatewayClient(periodic.url);
        const own = await createAgentWithToken(client, await client.adminToken(), {
          label: 'periodic',
          dailyTokenBudget: 1000,
        });
        const session = await openRawSession(periodic.url, own.token);
        const names = async () => toolNames(await rawCall(periodic.url, own.token, session.sessionId, 'tools/list'));
        expect(await names()).toEqual(['count_items', 'create_item', 'get_item']);

        downstream.tools = [GET_ITEM, CREATE_ITEM];
        await eventually(names, (tools) => !tools.includes('count_items'), 4000);
        const removed = await rawCall(periodic.url, own.token, session.sessionId, 'tools/call', {
          name: 'count_items',
          arguments: {},
        });
        expect(removed.status).toBe(400);
        expect(removed.message.error.code).toBe(-32602);
      } finally {
        await periodic.stop();
      }
    });
  });
});
