import { describe, expect, it } from 'vitest';
import { AgentService } from '../agents/agent-service.js';
import type { AuditEvent } from '../audit/trail.js';
import { TokenService } from '../auth/token-service.js';
import { SettlementQueue } from '../pipeline/settlement-queue.js';
import { createMemoryStore } from '../store/memory/index.js';
import type { AgentStore, RateLimiter } from '../store/ports.js';
import { getCustomer } from '../testing/tool-fixtures.js';
import { buildToolRegistry } from '../tools/registry.js';
import type { McpAnswer, McpReply } from './mcp-messages.js';
import { McpService } from './mcp-service.js';

const { registry } = buildToolRegistry([getCustomer]);
const rpc = (method: string, params: Record<string, unknown> = {}, id = 1) =>
  JSON.stringify({ jsonrpc: '2.0', id, method, params });
const CALL = rpc('tools/call', { name: 'getCustomer', arguments: { id: '7' } });

/**
 * The service over the memory store on a frozen clock, with the rate
 * limiter and the agent reads watched: whether a take was sent in the same
 * synchronous stretch as the agent read that followed it (what lets
 * node-redis send both in one round trip).
 */
async function setup() {
  const clock = () => new Date('2025-05-01T12:00:00Z');
  const store = createMemoryStore();
  let takeInThisTick = false;
  const readsWithTake: boolean[] = [];
  const rateLimits: RateLimiter = {
    take: (...args) => {
      takeInThisTick = true;
      queueMicrotask(() => (takeInThisTick = false));
      return store.rateLimits.take(...args);
    },
    giveBack: (...args) => store.rateLimits.giveBack(...args),
  };
  const readAgent = (agentId: string) => {
    readsWithTake.push(takeInThisTick);
    return store.agents.get(agentId);
  };
  const agentStore = new Proxy(store.agents, {
    get: (target, name) =>
      name === 'get' ? readAgent : (Reflect.get(target, name) as (...args: unknown[]) => unknown).bind(target),
  }) as AgentStore;
  const tokens = new TokenService({ signingKey: 's'.repeat(32), clock });
  const agents = new AgentService({ store: { ...store, agents: agentStore }, tokens, clock });
  const settlements = new SettlementQueue({ ledger: store.budget });
  const audited: AuditEvent[] = [];
  const service = new McpService({
    agents,
    sessions: store.sessions,
    sessionIdleMs: 60_000,
    toolCall: {
      registry: () => registry,
      budget: store.budget,
      settlements,
      rateLimiter: rateLimits,
      forwarder: { forward: async () => ({ status: 200, headers: {}, body: { id: '7' }, durationMs: 1 }) },
      clock,
    },
    serverInfo: { name: 'tollgate', version: '0.0.0-test' },
    audit: (event) => audited.push(event),
    isReady: async () => true,
  });
  const agent = await agents.create({
    label: 'limited',
    dailyTokenBudget: 10_000,
    rateLimit: { callsPerMinute: 6, burst: 2 },
  });
  const authorization = `Bearer ${(await agents.issueToken(agent.agentId, 1)).token}`;
  const post = async (body: string, sessionId?: string): Promise<McpAnswer> =>
    answered(service.post({ authorization, sessionId, protocolVersion: undefined, body }));
  const sessionId = (
    await post(
      rpc('initialize', { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 't', version: '1' } }),
    )
  ).sessionId!;
  const usage = async () => {
    await settlements.settled(agent.agentId);
    return store.budget.usage(agent.agentId, clock());
  };
  return { post, sessionId, audited, usage, readsWithTake, agentId: agent.agentId };
}

async function answered(reply: McpReply | Promise<McpReply>): Promise<McpAnswer> {
  const settled = await reply;
  if (settled.kind === 'pending') return settled.answer;
  if (settled.kind !== 'answer') throw new Error(`expected an answer, got ${settled.kind}`);
  return settled;
}

describe('McpService: per-agent rate limit', () => {
  it('refuses a tools/call past the burst in-band with -32029 and retryAfterSeconds, audits it, and charges nothing for it', async () => {
    const { post, sessionId, audited, usage, agentId } = await setup();
    const first = await post(CALL, sessionId);
    const second = await post(CALL, sessionId);
    expect([first.failure, second.failure]).toEqual([undefined, undefined]);
    const usedByTwo = (await usage()).used;
    const refused = await post(CALL, sessionId);
    expect(refused).toMatchObject({
      status: 200,
      failure: { code: 'rate-limited', httpStatus: 429, jsonRpcCode: -32029 },
    });
    expect(refused.message).toMatchObject({
      error: {
        code: -32029,
        data: {
          reason: 'rate-limited',
          retryAfterSeconds: 10,
          callsPerMinute: 6,
          burst: 2,
          remaining: 0,
          resetsAt: '2025-05-01T12:00:10.000Z',
        },
      },
    });
    expect(audited.at(-1)).toMatchObject({
      kind: 'tool-call',
      agentId,
      tool: 'getCustomer',
      outcome: 'rate-limited',
      tokensCharged: 0,
    });
    // The reservation sent ahead of the refused call was given back.
    expect(await usage()).toEqual({ day: '2025-05-01', used: usedByTwo, reserved: 0 });
  });

  it("sends a known agent's take in the same tick as its record read, so both share one store round trip", async () => {
    const { post, sessionId, readsWithTake } = await setup();
    await post(CALL, sessionId); // first call: the limit is not known yet, taken after the read
    readsWithTake.length = 0;
    await post(CALL, sessionId);
    await post(CALL, sessionId);
    expect(readsWithTake).toEqual([true, true]);
  });

  it('limits tools/call only: ping and tools/list go on past the limit', async () => {
    const { post, sessionId } = await setup();
    for (let i = 0; i < 3; i++) await post(CALL, sessionId);
    for (let i = 0; i < 5; i++) {
      expect((await post(rpc('ping'), sessionId)).failure).toBeUndefined();
      expect((await post(rpc('tools/list'), sessionId)).failure).toBeUndefined();
    }
  });

  it('does not count a call refused before the limits step (unknown session, unknown tool)', async () => {
    const { post, sessionId } = await setup();
    expect((await post(CALL, sessionId)).failure).toBeUndefined();
    for (let i = 0; i < 3; i++) expect((await post(CALL, 'x'.repeat(32))).failure?.code).toBe('session-not-found');
    for (let i = 0; i < 3; i++)
      expect((await post(rpc('tools/call', { name: 'nope', arguments: {} }), sessionId)).failure?.code).toBe(
        'unknown-tool',
      );
    expect((await post(CALL, sessionId)).failure).toBeUndefined();
    expect((await post(CALL, sessionId)).failure?.code).toBe('rate-limited');
  });
});
