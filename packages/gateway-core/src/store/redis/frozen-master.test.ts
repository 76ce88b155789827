import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newAgentId } from '../../agents/agent-id.js';
import { StoreUnavailableError } from '../../errors.js';
import { eventually } from '../../testing/eventually.js';
import { startRedisCluster, type RedisCluster } from '../../testing/redis-cluster.js';
import { isRedisServerAvailable } from '../../testing/redis-server.js';
import { PartialStoreOutage } from '../partial-outage.js';
import type { GatewayStore } from '../ports.js';
import { CLUSTER_SHARDS, createRedisStore } from './index.js';
import { Keys } from './keys.js';
import { keySlot } from './slots.js';

/** Long on purpose: a refusal that comes before it came from knowing the master is away, not from waiting it out. */
const COMMAND_TIMEOUT_MS = 5_000;
const PREFIX = `test:${randomUUID()}:`;
const noon = new Date('2026-03-01T12:00:00Z');

/**
 * One master of a real 3-master Cluster frozen (SIGSTOP: its connections stay
 * open and nothing is answered), issue 25 finding 12: the agents stored there
 * are refused before the command timeout, and at once once the master is
 * known away; the agents on the other masters go on; the store reads as
 * partly out (readiness Degraded); the master's return is noticed.
 */
describe.runIf(isRedisServerAvailable())('one frozen master of a Redis Cluster', () => {
  let cluster: RedisCluster;
  let store: GatewayStore;
  const keys = new Keys(PREFIX, CLUSTER_SHARDS);
  const masterOf = (key: string) =>
    cluster.nodes.findIndex((node) => keySlot(key) >= node.slots[0] && keySlot(key) <= node.slots[1]);
  const agentOn = (master: number): string => {
    for (;;) {
      const agentId = newAgentId();
      if (masterOf(keys.agent(agentId)) === master) return agentId;
    }
  };

  beforeAll(async () => {
    // The node timeout outlasts the freeze: the cluster itself keeps serving the other masters' slots.
    cluster = await startRedisCluster({ nodeTimeoutMs: 15_000 });
    store = await createRedisStore(cluster.url, { keyPrefix: PREFIX, commandTimeoutMs: COMMAND_TIMEOUT_MS });
  }, 30_000);
  afterAll(async () => {
    for (let node = 0; node < 3; node++) cluster?.resumeNode(node);
    await store?.close();
    await cluster?.stop();
  });

  /** How long `read` took to fail, and what it failed with. */
  async function refusal(read: () => Promise<unknown>): Promise<{ ms: number; error: unknown }> {
    const startedAt = performance.now();
    const error = await read().then(
      () => null,
      (failure: unknown) => failure,
    );
    return { ms: performance.now() - startedAt, error };
  }

  it('refuses the agents stored there before the command timeout, then without a round trip; the others go on', async () => {
    const victim = agentOn(0);
    const bystander = agentOn(1);
    expect(await store.revocation.generation(victim)).toBe(0);
    cluster.pauseNode(0);
    try {
      const first = await refusal(() => store.revocation.generation(victim));
      console.info(
        `frozen master: first refusal after ${first.ms.toFixed(0)} ms (command timeout ${COMMAND_TIMEOUT_MS} ms)`,
      );
      expect(first.error).toBeInstanceOf(StoreUnavailableError);
      expect(first.ms).toBeLessThan(COMMAND_TIMEOUT_MS);

      // Known away now: refused before the next turn of the event loop, so before any reply from any server could come.
      let turned = false;
      setImmediate(() => (turned = true));
      const next = await refusal(() => store.budget.reserve(victim, 1_000, 10, noon));
      expect(next.error).toBeInstanceOf(StoreUnavailableError);
      expect(turned).toBe(false);

      expect(await store.revocation.generation(bystander)).toBe(0);
      expect(await store.budget.reserve(bystander, 1_000, 10, noon)).toMatchObject({ ok: true });
      await expect(store.ping()).rejects.toBeInstanceOf(PartialStoreOutage);
    } finally {
      cluster.resumeNode(0);
    }
    // One probe at a time notices the return.
    await eventually(async () => expect(await store.revocation.generation(victim)).toBe(0), 10_000);
    await store.ping();
  }, 30_000);

  it('keeps a session beside its agent: a new session id carries the agent’s slot', async () => {
    for (const master of [0, 1, 2]) {
      const agentId = agentOn(master);
      const sessionId = store.sessions.newSessionId(agentId);
      expect(sessionId).toMatch(/^[A-Za-z0-9_-]{32}$/);
      expect(keySlot(keys.session(sessionId))).toBe(keySlot(keys.agent(agentId)));
      await store.sessions.create(
        {
          sessionId,
          agentId,
          protocolVersion: '2025-11-25',
          clientInfo: { name: 'test', version: '1' },
          createdAt: noon.toISOString(),
        },
        60_000,
        10,
      );
      expect(await store.sessions.touch(sessionId, 60_000)).toMatchObject({ agentId });
    }
  });
});
