import { describe, expect, it } from 'vitest';
import { RateLimitedError } from '../errors.js';
import type { Forwarder } from '../forward/forwarder.js';
import { createMemoryStore } from '../store/memory/index.js';
import type { AgentRecord, RateLimit } from '../store/ports.js';
import { getCustomer, testAgent } from '../testing/tool-fixtures.js';
import { buildToolRegistry } from '../tools/registry.js';
import { callTool } from './tool-call.js';
import type { ToolCallDeps } from './tool-call-deps.js';

const NOW = new Date('2025-05-01T12:00:00Z');
const { registry } = buildToolRegistry([getCustomer]);

function setup() {
  const store = createMemoryStore();
  let forwarded = 0;
  const forwarder: Forwarder = {
    forward: async () => {
      forwarded++;
      return { status: 200, headers: {}, body: { id: '7' }, durationMs: 1 };
    },
  };
  let now = NOW.getTime();
  const deps: ToolCallDeps = {
    registry: () => registry,
    budget: store.budget,
    rateLimiter: store.rateLimits,
    forwarder,
    clock: () => new Date(now),
  };
  const call = (agent: AgentRecord, name = 'getCustomer') =>
    callTool(deps, { agent, tokenScopes: [], protocolVersion: '2024-11-05' }, { name, arguments: { id: '7' } });
  return {
    deps,
    call,
    forwarded: () => forwarded,
    usage: () => store.budget.usage('agt_test', new Date(now)),
    advance: (ms: number) => (now += ms),
  };
}

const limited = (rateLimit: RateLimit | null, overrides: Partial<AgentRecord> = {}) =>
  testAgent({ rateLimit, ...overrides }, NOW);

describe('callTool: the limits step', () => {
  it("lets an agent's burst through, then refuses with when the next call passes; nothing forwarded or reserved", async () => {
    const { call, forwarded, usage } = setup();
    const agent = limited({ callsPerMinute: 6, burst: 2 });
    expect((await call(agent)).ok).toBe(true);
    expect((await call(agent)).ok).toBe(true);
    const refused = await call(agent);
    expect(refused).toMatchObject({ ok: false, tool: 'getCustomer', tokensCharged: 0 });
    const error = (refused as { error: RateLimitedError }).error;
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error.data).toEqual({
      reason: 'rate-limited',
      resetsAt: '2025-05-01T12:00:10.000Z',
      retryAfterSeconds: 10,
      callsPerMinute: 6,
      burst: 2,
      remaining: 0,
    });
    expect(error.message).toMatch(/6 calls per minute \(burst 2\)/);
    expect(forwarded()).toBe(2);
    expect((await usage()).reserved).toBe(0);
  });

  it('lets the next call through once the wait has passed', async () => {
    const { call, advance } = setup();
    const agent = limited({ callsPerMinute: 6, burst: 1 });
    expect((await call(agent)).ok).toBe(true);
    expect((await call(agent)).ok).toBe(false);
    advance(10_000);
    expect((await call(agent)).ok).toBe(true);
  });

  it('does not limit an agent without a limit', async () => {
    const { call, forwarded } = setup();
    const agent = limited(null);
    for (let i = 0; i < 20; i++) expect((await call(agent)).ok).toBe(true);
    expect(forwarded()).toBe(20);
  });

  it('counts only calls that reach the step: a refusal by the access checks is not counted', async () => {
    const { call } = setup();
    const agent = limited({ callsPerMinute: 6, burst: 1 });
    const notAllowed = limited({ callsPerMinute: 6, burst: 1 }, { allowedTools: ['someOtherTool'] });
    for (let i = 0; i < 3; i++)
      expect(await call(notAllowed)).toMatchObject({ ok: false, error: { code: 'not-allowlisted' } });
    expect((await call(agent, 'noSuchTool')).ok).toBe(false);
    expect((await call(agent)).ok).toBe(true);
  });
});
