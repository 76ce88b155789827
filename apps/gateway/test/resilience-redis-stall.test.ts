import type { RedisServer } from '@tollgate/gateway-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControlledDownstream } from './support/controlled-downstream.js';
import { createAgentWithToken, openRawSession } from './support/mcp.js';
import { startPair, type Pair } from './support/pair.js';
import { eventually } from './support/processes.js';
import { redisServerAvailable } from './support/redis-guard.js';
import { callThroughStall, duplicatedCalls, settledAudit } from './support/stall.js';

const available = redisServerAvailable('the Redis stall test');

const BUDGET = 1_000_000;

/**
 * Redis frozen (SIGSTOP) under load, then thawed (issue 25, findings 5 and
 * 14): commands the gateway gave up on after its 2 s timeout still run when
 * Redis wakes up. A budget reservation that lands that late is given back,
 * and an audit batch written late and retried is stored once: afterwards the
 * ledger holds nothing, and the audit trail charges what the ledger does,
 * one record per answered call.
 */
describe.runIf(available)('Redis frozen under load (dist/main.js + controlled downstream + redis-server)', () => {
  let pair: Pair<ControlledDownstream, true>;
  let redis: RedisServer;
  let admin: string;

  beforeAll(async () => {
    pair = await startPair({
      downstream: 'controlled',
      redis: true,
      gateway: { env: { Gw__Cache__Enabled: 'false' } },
    });
    redis = pair.redis;
    admin = await pair.adminToken();
  });
  afterAll(async () => {
    redis?.resume();
    await pair?.stop();
  });

  it('after a 5 s freeze and an idle moment, remaining = budget − used, and the audit trail charges exactly the ledger', async () => {
    const agent = await createAgentWithToken(pair.api, admin, {
      label: 'through the freeze',
      dailyTokenBudget: BUDGET,
    });
    const { sessionId } = await openRawSession(pair.url, agent.token);
    const stalled = { agent, sessionId, gatewayUrl: pair.url };

    const { outcomes } = await callThroughStall([stalled], {
      loops: 4,
      beforePause: 40,
      pauseMs: 5_000,
      afterResume: 20,
      pause: () => redis.pause(),
      resume: () => redis.resume(),
    });
    const { replies, answered } = outcomes.get(agent.agentId)!;
    const refused = replies.filter((reply) => reply.message?.error?.code === -32003).length;
    console.info(`redis stall: ${replies.length} calls, ${answered} answered, ${refused} refused with -32003`);
    expect(refused).toBeGreaterThan(0);
    expect(pair.gateway.child.exitCode).toBeNull();

    // Finding 5: one `ok` record per answered call (+ the marker), none written twice, and the tokens they charge are the ledger's.
    const records = await settledAudit(pair.api, admin, stalled);
    const ok = records.filter((record) => record.outcome === 'ok');
    const budget = (await pair.api.request('GET', `/management/agents/${agent.agentId}/budget`, admin)).body;
    console.info(
      `redis stall: ${ok.length} ok records for ${answered + 1} answers, ${duplicatedCalls(records)} duplicated; ledger used ${budget.used}`,
    );
    expect(duplicatedCalls(records)).toBe(0);
    expect(ok).toHaveLength(answered + 1);
    expect(records.reduce((sum, record) => sum + record.tokensCharged, 0)).toBe(budget.used);

    // Finding 14: nothing is held once every call has ended, though some reservations landed after their call gave up on them.
    const idle = await eventually(
      async () => (await pair.api.request('GET', `/management/agents/${agent.agentId}/budget`, admin)).body,
      (view) => view.remaining === BUDGET - view.used,
      15_000,
    );
    expect(idle.used).toBe(budget.used);
  });
});
