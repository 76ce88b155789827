import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { TooManyCallsError } from '../errors.js';
import type { Forwarder } from '../forward/forwarder.js';
import { createMemoryStore } from '../store/memory/index.js';
import { MemoryRateLimiter } from '../store/memory/rate-limits.js';
import { loadTokenizer } from '../tokens/count.js';
import { getCustomer, testAgent } from '../testing/tool-fixtures.js';
import { buildToolRegistry, type ToolRegistry } from '../tools/registry.js';
import { CallPreparation } from './prepared-call.js';
import { SettlementQueue } from './settlement-queue.js';
import { callTool } from './tool-call.js';
import type { ToolCallDeps } from './tool-call-deps.js';

const NOW = new Date('2025-05-01T12:00:00Z');
const AGENT = 'agt_test';
const LIMIT = { callsPerMinute: 60, burst: 2 };
const clock = () => NOW;
const agent = testAgent({ agentId: AGENT, dailyTokenBudget: 1_000, rateLimit: LIMIT }, NOW);
const ARGS = { id: '7' };

function setup(maxConcurrentCallsPerAgent?: number) {
  const { registry } = buildToolRegistry([getCustomer]);
  let lookups = 0;
  // Counts the tool lookups: a call resolves its tool once.
  const counting = { get: (name: string) => (lookups++, registry.get(name)) } as ToolRegistry;
  const store = createMemoryStore();
  const settlements = new SettlementQueue({ ledger: store.budget });
  const rateLimiter = new MemoryRateLimiter();
  const forwarder: Forwarder = {
    forward: async () => ({ status: 200, headers: {}, body: { id: '7' }, durationMs: 1 }),
  };
  const deps: ToolCallDeps = {
    registry: () => counting,
    budget: store.budget,
    settlements,
    rateLimiter,
    forwarder,
    clock,
  };
  const calls = new CallPreparation(deps, maxConcurrentCallsPerAgent);
  calls.remember(agent);
  const usage = async () => {
    await settlements.settled(AGENT);
    return store.budget.usage(AGENT, NOW);
  };
  /** How many more calls the agent may make now (counting them). */
  const callsLeft = async () => {
    let passed = 0;
    while ((await rateLimiter.take(AGENT, LIMIT, NOW)).ok) passed++;
    return passed;
  };
  return { deps, calls, usage, callsLeft, lookups: () => lookups };
}

const flush = () => sleep(5);

// Loaded before the first call, as the service does, so no test pays for it within its own time limit.
beforeAll(() => loadTokenizer());

describe('PreparedCall', () => {
  it('resolves the tool once for the checks and the pipeline, whose steps use what it started', async () => {
    const { deps, calls, usage, callsLeft, lookups } = setup();
    const prepared = calls.prepare(AGENT, 'getCustomer', ARGS);
    expect(prepared.toolName).toBe('getCustomer');
    expect(prepared.reservation).not.toBeNull();
    expect(prepared.rateTake).not.toBeNull();
    const report = await callTool(
      deps,
      { agent, tokenScopes: [], protocolVersion: '2025-06-18' },
      { name: 'getCustomer', arguments: ARGS },
      prepared,
    );
    prepared.release();
    expect(report).toMatchObject({ ok: true, tool: 'getCustomer' });
    expect(lookups()).toBe(1);
    // The call was counted once (the early take), and charged once (the early reservation).
    expect(await callsLeft()).toBe(LIMIT.burst - 1);
    expect(await usage()).toMatchObject({ used: report.tokensCharged, reserved: 0 });
  });

  it('an early reservation that found the budget held waits, then the call goes through', async () => {
    const { deps, calls } = setup();
    const store = deps.budget;
    const inFlight = await store.reserve(AGENT, 1_000, 1_000, NOW);
    if (!inFlight.ok) throw new Error('setup reservation failed');
    const prepared = calls.prepare(AGENT, 'getCustomer', ARGS);
    const report = callTool(
      deps,
      { agent, tokenScopes: [], protocolVersion: '2025-06-18' },
      { name: 'getCustomer', arguments: ARGS },
      prepared,
    );
    let settled = false;
    void report.finally(() => (settled = true));
    await flush();
    expect(settled).toBe(false);
    await store.settle(inFlight.reservation, 20);
    expect(await report).toMatchObject({ ok: true });
    prepared.release();
  });

  it('gives everything back once when released before the pipeline ran, however often release is called', async () => {
    const { calls, usage, callsLeft } = setup(1);
    const prepared = calls.prepare(AGENT, 'getCustomer', ARGS);
    expect(() => calls.prepare(AGENT, 'getCustomer', ARGS)).toThrow(TooManyCallsError);
    prepared.release();
    prepared.release();
    await flush();
    expect(await usage()).toMatchObject({ used: 0, reserved: 0 });
    expect(await callsLeft()).toBe(LIMIT.burst);
    // The place was given back once: one more call fits, not two.
    const next = calls.prepare(AGENT, 'getCustomer', ARGS);
    expect(() => calls.prepare(AGENT, 'getCustomer', ARGS)).toThrow(TooManyCallsError);
    next.release();
  });

  it("starts nothing for a tool the registry does not know, and still holds the agent's place", async () => {
    const { calls, usage, callsLeft } = setup(1);
    const prepared = calls.prepare(AGENT, 'dropDatabase', ARGS);
    expect(prepared).toMatchObject({
      tool: undefined,
      toolName: null,
      reservation: null,
      rateTake: null,
      cachePeek: null,
    });
    expect(() => calls.prepare(AGENT, 'getCustomer', ARGS)).toThrow(TooManyCallsError);
    prepared.release();
    expect(await usage()).toMatchObject({ used: 0, reserved: 0 });
    expect(await callsLeft()).toBe(LIMIT.burst);
  });

  it('starts no reservation or take for an agent not seen yet', () => {
    const { calls } = setup();
    const prepared = calls.prepare('agt_new', 'getCustomer', ARGS);
    expect(prepared).toMatchObject({ toolName: 'getCustomer', reservation: null, rateTake: null });
    prepared.release();
  });

  it('names a known tool for the record of a call refused before it was prepared, and no other', () => {
    const { calls } = setup();
    expect(calls.knownToolName('getCustomer')).toBe('getCustomer');
    expect(calls.knownToolName('dropDatabase')).toBeNull();
    expect(calls.knownToolName(42)).toBeNull();
  });
});
