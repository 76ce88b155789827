import { describe, expect, it } from 'vitest';
import { AgentService } from '../agents/agent-service.js';
import { TokenService } from '../auth/token-service.js';
import { SemanticCache } from '../cache/semantic-cache.js';
import { SettlementQueue } from '../pipeline/settlement-queue.js';
import { createMemoryStore } from '../store/memory/index.js';
import type { AgentStore, ResponseCache } from '../store/ports.js';
import { getCustomer } from '../testing/tool-fixtures.js';
import { buildToolRegistry } from '../tools/registry.js';
import type { McpAnswer, McpReply } from './mcp-messages.js';
import { McpService } from './mcp-service.js';

const { registry } = buildToolRegistry([getCustomer]);
const rpc = (method: string, params: Record<string, unknown> = {}, id = 1) =>
  JSON.stringify({ jsonrpc: '2.0', id, method, params });
const CALL = rpc('tools/call', { name: 'getCustomer', arguments: { id: '7' } });

/**
 * The service over the memory store with the response cache on, its reads
 * watched: how many, and whether each was sent in the same synchronous
 * stretch as an agent record read (what lets node-redis send both in one
 * round trip).
 */
async function setup() {
  const clock = () => new Date('2025-05-01T12:00:00Z');
  const store = createMemoryStore();
  let agentReadThisTick = false;
  const cacheReads: boolean[] = [];
  const agentStore = new Proxy(store.agents, {
    get: (target, name) =>
      name === 'get'
        ? (agentId: string) => {
            agentReadThisTick = true;
            queueMicrotask(() => (agentReadThisTick = false));
            return target.get(agentId);
          }
        : (Reflect.get(target, name) as (...args: unknown[]) => unknown).bind(target),
  }) as AgentStore;
  const watched: ResponseCache = {
    get: (key) => {
      // The cache read goes first; the agent read follows in the same stretch, before any await.
      queueMicrotask(() => cacheReads.push(agentReadThisTick));
      return store.cache.get(key);
    },
    set: (...args) => store.cache.set(...args),
    candidates: (...args) => store.cache.candidates(...args),
    addCandidate: (...args) => store.cache.addCandidate(...args),
  };
  const cache = new SemanticCache({ cache: watched });
  const tokens = new TokenService({ signingKey: 's'.repeat(32), clock });
  const agents = new AgentService({ store: { ...store, agents: agentStore }, tokens, clock });
  const settlements = new SettlementQueue({ ledger: store.budget });
  let forwarded = 0;
  const service = new McpService({
    agents,
    sessions: store.sessions,
    sessionIdleMs: 60_000,
    toolCall: {
      registry: () => registry,
      budget: store.budget,
      settlements,
      cache,
      forwarder: {
        forward: async () => (forwarded++, { status: 200, headers: {}, body: { id: '7', name: 'Ada' }, durationMs: 1 }),
      },
      clock,
    },
    serverInfo: { name: 'tollgate', version: '0.0.0-test' },
    audit: () => {},
    isReady: async () => true,
  });
  const agent = await agents.create({ label: 'cached', dailyTokenBudget: 10_000 });
  const authorization = `Bearer ${(await agents.issueToken(agent.agentId, 1)).token}`;
  const post = async (body: string, sessionId?: string): Promise<McpAnswer> =>
    answered(service.post({ authorization, sessionId, protocolVersion: undefined, body }));
  const sessionId = (
    await post(
      rpc('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } }),
    )
  ).sessionId!;
  const spendAll = async () => {
    await settlements.settled(agent.agentId);
    const left = 10_000 - (await store.budget.usage(agent.agentId, clock())).used;
    const spent = await store.budget.reserve(agent.agentId, 10_000, left, clock());
    if (!spent.ok) throw new Error('setup reservation failed');
    await store.budget.settle(spent.reservation, left);
  };
  return { post, sessionId, cache, cacheReads, forwarded: () => forwarded, spendAll };
}

async function answered(reply: McpReply | Promise<McpReply>): Promise<McpAnswer> {
  const settled = await reply;
  if (settled.kind === 'pending') return settled.answer;
  if (settled.kind !== 'answer') throw new Error(`expected an answer, got ${settled.kind}`);
  return settled;
}

describe('McpService: a tools/call answered from the cache', () => {
  it('reads the cached answer once, in the same tick as the agent record, and answers with it', async () => {
    const { post, sessionId, cache, cacheReads, forwarded } = await setup();
    const first = await post(CALL, sessionId);
    await cache.idle();
    cacheReads.length = 0;
    const second = await post(CALL, sessionId);
    expect(forwarded()).toBe(1);
    expect(second.failure).toBeUndefined();
    expect(second.message).toEqual(first.message);
    expect(cacheReads).toEqual([true]);
  });

  it('answers nothing from the cache to a call refused by a later check (budget spent)', async () => {
    const { post, sessionId, cache, spendAll, forwarded } = await setup();
    await post(CALL, sessionId);
    await cache.idle();
    await spendAll();
    const refused = await post(CALL, sessionId);
    expect(refused.failure).toMatchObject({ code: 'budget-exhausted' });
    expect(forwarded()).toBe(1);
  });

  it('refuses arguments the tool does not accept, though their read was started', async () => {
    const { post, sessionId } = await setup();
    const refused = await post(
      rpc('tools/call', { name: 'getCustomer', arguments: { id: 7, extra: true } }),
      sessionId,
    );
    expect(refused.failure).toMatchObject({ code: 'invalid-arguments' });
  });
});
