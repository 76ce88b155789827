import { countTokens } from '@tollgate/gateway-core/internal';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentAudit, countOutcomes } from './support/audit.js';
import { GET_ITEM, type ControlledDownstream } from './support/controlled-downstream.js';
import type { GatewayClient } from './support/gateway-client.js';
import { createAgentWithToken, openRawSession, rawCall, type McpExchange } from './support/mcp.js';
import { startPair, type Pair } from './support/pair.js';
import { eventually } from './support/processes.js';
import { redisServerAvailable } from './support/redis-guard.js';

const available = redisServerAvailable('the budget admission test');

const BUDGET = 500;
const CALLS = 200;
/** get_item reserves its cap of 200 tokens and answers about 15: two and a half calls hold the whole budget. */
const CAP = GET_ITEM.maxResponseTokens;

/** What one reply says: charged tokens when it succeeded, or the refusal. */
interface Outcome {
  ok: boolean;
  charged: number;
  code: number | null;
  message: string | null;
}

function outcomeOf(reply: McpExchange): Outcome {
  const error = reply.message?.error;
  if (error) return { ok: false, charged: 0, code: error.code, message: error.message };
  return { ok: true, charged: countTokens(reply.message.result.content[0].text), code: null, message: null };
}

/**
 * Issue 15, "refused while budget remains": 200 concurrent calls on a budget
 * of 500 tokens, each reserving a cap far above what it is charged, used to
 * see 159 refused as exhausted with 131 tokens left. Now a call that finds
 * the budget held by calls in flight waits for them to settle, on either of
 * two gateway processes sharing one Redis; only a call that finds the
 * settled tokens at the budget is refused. Still no overshoot.
 */
describe.runIf(available)('budget admission under 200 concurrent calls on two gateways and one Redis', () => {
  let pair: Pair<ControlledDownstream, true>;
  let api: GatewayClient;
  let admin: string;

  beforeAll(async () => {
    pair = await startPair({
      downstream: 'controlled',
      redis: true,
      instances: 2,
      // No cache (every call forwarded and charged); no per-agent concurrency limit, so all 200 calls reach the budget step.
      gateway: { env: { Gw__Cache__Enabled: 'false', Gw__Mcp__MaxConcurrentCallsPerAgent: '0' } },
    });
    api = pair.api;
    admin = await pair.adminToken();
  });
  afterAll(() => pair?.stop());

  it('charges the whole budget and never past it; refuses only once the settled tokens reach it', async () => {
    const gateways = pair.gateways.map((gateway) => gateway.url);
    const agent = await createAgentWithToken(api, admin, { label: 'budget flood', dailyTokenBudget: BUDGET });
    const { sessionId } = await openRawSession(gateways[0]!, agent.token);
    const call = (index: number) =>
      rawCall(
        gateways[index % 2]!,
        agent.token,
        sessionId,
        'tools/call',
        { name: 'get_item', arguments: { id: index } },
        index + 1,
      );

    // One call on each instance first: each then knows the agent, and the flood reserves ahead with authentication.
    const warmUp = (await Promise.all([call(1_000), call(1_001)])).map(outcomeOf);
    expect(warmUp.every((outcome) => outcome.ok)).toBe(true);

    // Answers take a little while, so reservations overlap as under real load.
    pair.downstream.delayMs = 20;
    const started = performance.now();
    const replies = await Promise.all(Array.from({ length: CALLS }, (_, index) => call(index)));
    const floodMs = performance.now() - started;
    pair.downstream.delayMs = 0;

    expect(replies.map((reply) => reply.status).filter((status) => status !== 200)).toEqual([]);
    const outcomes = [...warmUp, ...replies.map(outcomeOf)];
    const served = outcomes.filter((outcome) => outcome.ok);
    const refused = outcomes.filter((outcome) => !outcome.ok);
    const charged = served.reduce((sum, outcome) => sum + outcome.charged, 0);
    // Each instance settles after its reply: the last settlements may land just after the last replies.
    const budget = await eventually(
      async () => (await api.request('GET', `/management/agents/${agent.agentId}/budget`, admin)).body,
      (view) => view.used === charged,
      5_000,
    ).catch(async () => (await api.request('GET', `/management/agents/${agent.agentId}/budget`, admin)).body);
    console.info(
      `budget flood: ${CALLS} calls (cap ${CAP}) in ${Math.round(floodMs)} ms: ${served.length} served, ${refused.length} refused; used ${budget.used} of ${BUDGET}`,
    );

    // Never past the budget, and every token charged is one an answer carried.
    expect(budget.used).toBeLessThanOrEqual(BUDGET);
    expect(budget.used).toBe(charged);
    // 200 answers of ~15 tokens do not fit in 500: some calls are refused…
    expect(refused.length).toBeGreaterThan(0);
    // …each as spent, never as held by calls in flight (no wait ran out)…
    for (const outcome of refused) {
      expect(outcome.code).toBe(-32029);
      expect(outcome.message).toMatch(/tokens is exhausted/);
    }
    // …and only once the settled tokens had reached the budget: used never falls, so it ends there.
    expect(budget.used).toBe(BUDGET);
    // No refused call reached the downstream.
    expect(pair.downstream.hits.filter((hit) => hit.path.startsWith('/items/'))).toHaveLength(served.length);

    // The audit trail tells the same story (its writes land after the replies).
    const records = await eventually(
      () => agentAudit(api, admin, agent.agentId),
      (found) => found.filter((record) => record.tool === 'get_item').length >= outcomes.length,
      10_000,
    );
    const calls = records.filter((record) => record.tool === 'get_item');
    expect(countOutcomes(calls)).toEqual({ ok: served.length, 'budget-exhausted': refused.length });
    expect(calls.reduce((sum, record) => sum + record.tokensCharged, 0)).toBe(BUDGET);
  }, 60_000);
});
