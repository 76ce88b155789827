import { startRedisCluster, type RedisCluster } from '@tollgate/gateway-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControlledDownstream } from './support/controlled-downstream.js';
import { createAgentWithToken, openRawSession, rawCall, type TestAgent } from './support/mcp.js';
import { startPair, type Pair } from './support/pair.js';
import { eventually } from './support/processes.js';
import { redisServerAvailable } from './support/redis-guard.js';

const available = redisServerAvailable('the Redis Cluster process test');

/**
 * Two built gateways on a real Redis Cluster of three masters
 * (`ConnectionStrings:Store=redis+cluster://…`, issue 19): they act as one
 * gateway, and when the master serving an agent stops, that agent's calls
 * answer 503 / -32003 at once, everyone's do once the cluster is down, and
 * all recover by themselves when it is back, with the agent's spent budget
 * kept (append-only file).
 */
describe.runIf(available)(
  'gateways on a Redis Cluster (dist/main.js + controlled downstream + 3 redis-server masters)',
  () => {
    let cluster: RedisCluster;
    let pair: Pair<ControlledDownstream, false>;
    let admin: string;

    beforeAll(async () => {
      cluster = await startRedisCluster({ persistent: true });
      pair = await startPair({
        downstream: 'controlled',
        instances: 2,
        gateway: { env: { ConnectionStrings__Store: cluster.url, Gw__Cache__Enabled: 'false' } },
      });
      admin = await pair.adminToken();
    }, 90_000); // beyond startRedisCluster's own 60 s bound
    afterAll(async () => {
      await pair?.stop();
      await cluster?.stop();
    });

    const call = (gatewayUrl: string, agent: TestAgent, sessionId: string, id: number) =>
      rawCall(gatewayUrl, agent.token, sessionId, 'tools/call', { name: 'get_item', arguments: { id } }, id);
    const budgetUsed = async (agentId: string) =>
      (await pair.api.request('GET', `/management/agents/${agentId}/budget`, admin)).body.used as number;

    it('serves agents on every master from either instance: sessions, budgets and audit are shared', async () => {
      const [a, b] = pair.gateways.map((gateway) => gateway.url) as [string, string];
      const agents = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          createAgentWithToken(pair.api, admin, { label: `spread ${i}`, dailyTokenBudget: 1_000_000 }),
        ),
      );
      expect(new Set(await Promise.all(agents.map((agent) => masterOf(cluster, agent.agentId)))).size).toBeGreaterThan(
        1,
      );
      for (const agent of agents) {
        const { sessionId } = await openRawSession(b, agent.token);
        expect((await call(a, agent, sessionId, 1)).status).toBe(200);
        expect((await call(b, agent, sessionId, 2)).status).toBe(200);
      }
      for (const agent of agents)
        await eventually(
          () => budgetUsed(agent.agentId),
          (used) => used > 0,
          5_000,
        );
      // The audit trail is written just after the replies, in batches: wait for it.
      const recorded = async (path: string) =>
        (await pair.api.request('GET', path, admin)).body.records.length as number;
      for (const agent of agents)
        await eventually(
          () => recorded(`/management/agents/${agent.agentId}/audit?tool=get_item`),
          (count) => count === 2,
          5_000,
        );
      await eventually(
        () => recorded('/management/audit?tool=get_item&limit=100'),
        (count) => count === 12,
        5_000,
      );
    });

    it("fails an agent's calls closed while its master is away, everyone's once the cluster is down, and recovers by itself", async () => {
      const [a, b] = pair.gateways.map((gateway) => gateway.url) as [string, string];
      const victim = await agentOnMaster(0);
      const bystander = await agentOnMaster(1);
      const victimSession = (await openRawSession(a, victim.token)).sessionId;
      const bystanderSession = (await openRawSession(a, bystander.token)).sessionId;
      expect((await call(a, victim, victimSession, 3)).status).toBe(200);
      const spentBefore = await budgetUsed(victim.agentId);
      expect(spentBefore).toBeGreaterThan(0);

      await cluster.stopNode(0);
      const refused = await call(a, victim, victimSession, 4);
      expect(refused.status).toBe(503);
      expect(refused.message.error.code).toBe(-32003);
      await eventually(
        () => fetch(`${b}/health/ready`).then((response) => response.status),
        (status) => status === 503,
        10_000,
      );

      await cluster.waitForState('fail');
      const down = await call(b, bystander, bystanderSession, 5);
      expect(down.status).toBe(503);
      expect(down.message.error.code).toBe(-32003);

      await cluster.startNode(0);
      await cluster.waitForState('ok');
      for (const gateway of [a, b])
        await eventually(
          () => fetch(`${gateway}/health/ready`).then((response) => response.status),
          (status) => status === 200,
          15_000,
        );
      expect((await call(b, victim, victimSession, 6)).status).toBe(200);
      expect((await call(a, bystander, bystanderSession, 7)).status).toBe(200);
      // Kept across the restart, and charged again (settled just after the reply, on the other instance).
      await eventually(
        () => budgetUsed(victim.agentId),
        (used) => used > spentBefore,
        5_000,
      );
      for (const gateway of pair.gateways) expect(gateway.child.exitCode).toBeNull();
    }, 60_000);

    /** A new agent whose hash slot the given master serves (agent ids are random: create until one lands there). */
    async function agentOnMaster(master: number): Promise<TestAgent> {
      for (let attempt = 0; attempt < 60; attempt++) {
        const agent = await createAgentWithToken(pair.api, admin, {
          label: `on master ${master}`,
          dailyTokenBudget: 1_000_000,
        });
        if ((await masterOf(cluster, agent.agentId)) === master) return agent;
      }
      throw new Error(`no agent landed on master ${master} in 60 tries`);
    }
  },
);

/** Which master serves an agent's keys: the slot of its hash tag. */
function masterOf(cluster: RedisCluster, agentId: string): Promise<number> {
  return cluster.masterOf(`{${agentId}}`);
}
