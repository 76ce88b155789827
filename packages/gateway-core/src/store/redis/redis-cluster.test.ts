import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { StoreUnavailableError } from '../../errors.js';
import { startRedisCluster, type RedisCluster } from '../../testing/redis-cluster.js';
import { isRedisServerAvailable } from '../../testing/redis-server.js';
import { describeStoreContract } from '../../testing/store-contract.js';
import { checkStore } from '../check.js';
import { PartialStoreOutage } from '../partial-outage.js';
import { createStore } from '../create-store.js';
import type { StoreOptions } from '../options.js';
import type { GatewayStore } from '../ports.js';
import { CLUSTER_SHARDS } from './index.js';
import { Keys } from './keys.js';
import { keySlot } from './slots.js';
import { auditEntry } from '../../testing/audit-fixtures.js';
import { eventually } from '../../testing/eventually.js';

const available = isRedisServerAvailable();
if (!available && process.env.CI === 'true') {
  throw new Error(
    'redis-server is not installed, and CI=true forbids skipping the Redis Cluster tests. Install it (apt-get install redis-server) or set REDIS_SERVER_BIN.',
  );
}

/*
 * The store on a real local cluster of three masters (no replicas), started
 * once for this file: the whole store contract, then what only a cluster
 * has: keys spread over the masters, one master restarted mid-run.
 */
describe.runIf(available)('Redis Cluster store', () => {
  let cluster: RedisCluster;
  beforeAll(async () => {
    cluster = await startRedisCluster({ persistent: true });
  }, 90_000); // beyond startRedisCluster's own 60 s bound: a slow start fails with the message naming its step
  afterAll(async () => {
    await cluster?.stop();
  });

  const open: GatewayStore[] = [];
  const instance = async (prefix: string, options: StoreOptions = {}) => {
    const store = await createStore(cluster.url, { keyPrefix: prefix, ...options });
    open.push(store);
    return store;
  };
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });

  describeStoreContract(
    'Redis Cluster',
    (options) => createStore(cluster.url, { keyPrefix: `test:${randomUUID()}:`, ...options }),
    { auditOrder: 'per-agent' },
  );

  describe('key layout', () => {
    it('computes the slot of a key as the cluster does, hash tags included', async () => {
      const admin = createClient({ url: cluster.nodes[0]!.url });
      await admin.connect();
      try {
        for (const key of [
          'foo',
          'tollgate:agent:{agt_x}',
          'a{}b',
          'x{y}z{w}',
          '{',
          '{agt_é}',
          `session:${randomUUID()}`,
        ]) {
          expect(keySlot(key), key).toBe(Number(await admin.sendCommand(['CLUSTER', 'KEYSLOT', key])));
        }
      } finally {
        admin.destroy();
      }
    });

    it('keeps everything of one agent in one slot, and spreads the shards of global keys over every master', () => {
      const keys = new Keys('tollgate:', CLUSTER_SHARDS);
      const agentKeys = [
        keys.agent('agt_x'),
        keys.generation('agt_x'),
        keys.budgetDay('agt_x', '2030-01-01'),
        keys.agentSessions('agt_x'),
        keys.auditAgent('agt_x'),
        keys.rateLimit('agt_x'),
      ];
      expect(new Set(agentKeys.map(keySlot)).size).toBe(1);
      for (const shardKey of [
        (s: number) => keys.auditAll(s),
        (s: number) => keys.agentIndex(s),
        (s: number) => keys.cacheGeneration(s),
      ]) {
        const perMaster = cluster.nodes.map(
          (node) =>
            Array.from({ length: CLUSTER_SHARDS }, (_, s) => keySlot(shardKey(s))).filter(
              (slot) => slot >= node.slots[0] && slot <= node.slots[1],
            ).length,
        );
        // 16 shards over 3 equal slot ranges: 5 or 6 each.
        expect(
          perMaster.every((count) => count === 5 || count === 6),
          perMaster.join(),
        ).toBe(true);
      }
    });
    it("spreads usage counters by agent and day: no one key (or master) takes every call's counters", () => {
      const keys = new Keys('tollgate:', CLUSTER_SHARDS);
      const agents = Array.from({ length: 30 }, (_, i) => `agt_${i}`);
      const masterOf = (key: string) =>
        cluster.nodes.findIndex((node) => keySlot(key) >= node.slots[0] && keySlot(key) <= node.slots[1]);
      expect(new Set(agents.map((agent) => masterOf(keys.usageDay(agent, '2030-01-01')))).size).toBe(
        cluster.nodes.length,
      );
      expect(
        new Set(
          ['2030-01-01', '2030-01-02', '2030-01-03', '2030-01-04'].map((day) => keySlot(keys.usageDay('agt_x', day))),
        ).size,
      ).toBe(4);
    });
  });

  describe('shared by several gateway instances', () => {
    it("keeps an agent's session cap across instances under concurrent creates", async () => {
      const prefix = `test:${randomUUID()}:`;
      const [a, b] = [await instance(prefix), await instance(prefix)];
      const ids = Array.from({ length: 20 }, (_, i) => `s${i}`);
      const ended = await Promise.all(
        ids.map((sessionId, i) =>
          (i % 2 ? a : b).sessions.create(
            { sessionId, agentId: 'agt_x', protocolVersion: '2024-11-05', clientInfo: null, createdAt: 'now' },
            60_000,
            5,
          ),
        ),
      );
      const alive = (await Promise.all(ids.map((id) => a.sessions.touch(id, 60_000)))).filter(
        (session) => session !== null,
      );
      expect(alive).toHaveLength(5);
      expect(new Set(ended.flat()).size).toBe(15);
    });

    it('sees a write generation bumped on another instance, whichever shard the bump went to', async () => {
      const prefix = `test:${randomUUID()}:`;
      const [a, b] = [await instance(prefix), await instance(prefix)];
      for (let i = 1; i <= 20; i++) {
        expect(await (i % 2 ? a : b).cacheGeneration.bump()).toBe(i);
        expect(await (i % 2 ? b : a).cacheGeneration.generation()).toBe(i);
      }
    });

    it('merges the shards of everything newest first, each agent in its order, across instances', async () => {
      const prefix = `test:${randomUUID()}:`;
      const [a, b] = [await instance(prefix), await instance(prefix)];
      const agents = Array.from({ length: 12 }, (_, i) => `agt_${i}`);
      for (let round = 0; round < 5; round++) {
        await Promise.all(
          [a, b].map((store, s) =>
            store.audit.append(agents.map((agentId) => auditEntry({ agentId, tokensCharged: round * 10 + s }))),
          ),
        );
      }
      const all = await readAll(a, 7);
      expect(all).toHaveLength(120);
      expect(new Set(all.map((r) => r.id)).size).toBe(120);
      for (const agentId of agents) {
        const mine = all.filter((r) => r.agentId === agentId).map((r) => Math.floor(r.tokensCharged / 10));
        expect(mine).toEqual([...mine].sort((x, y) => y - x));
        expect((await b.audit.query({ agentId, limit: 50 })).records).toHaveLength(10);
      }
    });

    it('arms no per-command timer on a cluster either', async () => {
      const store = await instance(`test:${randomUUID()}:`);
      const timeout = vi.spyOn(AbortSignal, 'timeout');
      try {
        await Promise.all(Array.from({ length: 20 }, (_, i) => store.revocation.generation(`agt_${i}`)));
        expect(timeout).not.toHaveBeenCalled();
      } finally {
        timeout.mockRestore();
      }
    });
  });

  describe('a primary restarted mid-run', () => {
    it('fails closed while it is away, for its agents at once and for everyone once the cluster is down, and serves its data again after', async () => {
      const errors: Error[] = [];
      const store = await instance(`test:${randomUUID()}:`, { onError: (error) => errors.push(error) });
      const victim = agentOn(cluster, 0);
      const bystander = agentOn(cluster, 1);
      const noon = new Date();
      await store.agents.create({
        agentId: victim,
        label: 'v',
        dailyTokenBudget: 100,
        isActive: true,
        allowedTools: null,
        scopes: [],
        externalSubjects: [],
        rateLimit: null,
        createdAt: 'a',
        updatedAt: 'a',
      });
      const spent = await store.budget.reserve(victim, 100, 40, noon);
      if (!spent.ok) throw new Error('expected a grant');
      await store.budget.settle(spent.reservation, 40);
      await store.sessions.create(
        {
          sessionId: `sess-${victim}`,
          agentId: victim,
          protocolVersion: '2024-11-05',
          clientInfo: null,
          createdAt: 'now',
        },
        60_000,
        10,
      );
      await store.revocation.revokeAll(victim);
      await store.ping();

      await cluster.stopNode(0);
      const started = Date.now();
      // The victim's slot has no master: every call about it fails, at once, typed.
      await expect(store.agents.get(victim)).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.revocation.generation(victim)).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.budget.reserve(victim, 100, 10, noon)).rejects.toBeInstanceOf(StoreUnavailableError);
      // The others are served meanwhile: the store is Degraded, not Unhealthy (issue 25, finding 12).
      expect(await store.revocation.generation(bystander)).toBe(0);
      await expect(store.ping()).rejects.toBeInstanceOf(PartialStoreOutage);
      expect(await checkStore(store)).toEqual({
        status: 'Degraded',
        description: '1 of 3 masters of the cluster do not answer: calls of the agents stored there are refused',
      });
      expect(Date.now() - started).toBeLessThan(1_000);
      // A batch of both agents' records: whatever part lands now is not written twice when the trail retries it.
      const batch = [
        auditEntry({ agentId: victim, tool: 'during' }),
        auditEntry({ agentId: bystander, tool: 'during' }),
      ];
      await expect(store.audit.append(batch)).rejects.toBeInstanceOf(StoreUnavailableError);

      // Once the other masters call it failed, the cluster is down: calls for every agent fail closed.
      await cluster.waitForState('fail');
      await expect(store.budget.reserve(bystander, 100, 10, noon)).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.revocation.generation(bystander)).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(await checkStore(store)).toEqual({
        status: 'Unhealthy',
        description: 'The store is unavailable: no master of the cluster answers',
      });

      await cluster.startNode(0);
      // The store recovers by itself once the cluster does (every master clears the failure).
      await cluster.waitForState('ok');
      await eventually(() => store.ping(), 15_000);
      expect(await checkStore(store)).toEqual({ status: 'Healthy' });
      // What the master had acknowledged before it stopped is there (append-only file).
      expect(await store.agents.get(victim)).toMatchObject({ agentId: victim, dailyTokenBudget: 100 });
      expect(await store.revocation.generation(victim)).toBe(1);
      expect(await store.budget.usage(victim, noon)).toMatchObject({ used: 40, reserved: 0 });
      expect(await store.sessions.touch(`sess-${victim}`, 60_000)).toMatchObject({ agentId: victim });
      expect(await store.budget.reserve(victim, 100, 60, noon)).toMatchObject({ ok: true, remaining: 0 });
      await store.audit.append(batch);
      for (const agentId of [victim, bystander]) {
        expect((await store.audit.query({ agentId, tool: 'during', limit: 10 })).records).toHaveLength(1);
      }
      expect((await store.audit.query({ tool: 'during', limit: 10 })).records).toHaveLength(2);
      expect(errors.length).toBeGreaterThanOrEqual(1);
    }, 30_000);
  });

  // Last: it takes the whole cluster away.
  describe('started while the cluster is away', () => {
    it('reports unavailable, and discovers the cluster by itself once a seed answers', async () => {
      await Promise.all(cluster.nodes.map((_, i) => cluster.stopNode(i)));
      const started = Date.now();
      const store = await instance(`test:${randomUUID()}:`, { connectTimeoutMs: 200 });
      expect(Date.now() - started).toBeLessThan(1_000);
      await expect(store.ping()).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.revocation.generation('agt_x')).rejects.toBeInstanceOf(StoreUnavailableError);
      await Promise.all(cluster.nodes.map((_, i) => cluster.startNode(i)));
      await cluster.waitForState('ok');
      await eventually(() => store.ping(), 15_000);
      expect(await store.revocation.revokeAll('agt_x')).toBe(1);
    }, 30_000);
  });
});

/** An agent id whose slot the given master serves. */
function agentOn(cluster: RedisCluster, master: number): string {
  const [from, to] = cluster.nodes[master]!.slots;
  for (let n = 0; ; n++) {
    const agentId = `agt_${master}_${n}`;
    const slot = keySlot(`{${agentId}}`);
    if (slot >= from && slot <= to) return agentId;
  }
}

async function readAll(store: GatewayStore, limit: number) {
  const all = [];
  let before: string | undefined;
  for (let pages = 0; pages < 100; pages++) {
    const page = await store.audit.query({ limit, ...(before ? { before } : {}) });
    all.push(...page.records);
    if (!page.nextCursor) return all;
    before = page.nextCursor;
  }
  throw new Error('pagination did not end');
}
