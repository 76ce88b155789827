import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newAgentId } from '../../agents/agent-id.js';
import { StoreUnavailableError } from '../../errors.js';
import { subjectKey } from '../agent-records.js';
import { auditEntry as fixtureEntry } from '../../testing/audit-fixtures.js';
import { eventually } from '../../testing/eventually.js';
import { startRedisCluster, type RedisCluster } from '../../testing/redis-cluster.js';
import { isRedisServerAvailable } from '../../testing/redis-server.js';
import { PartialStoreOutage } from '../partial-outage.js';
import type { AgentRecord, ExternalSubject, GatewayStore } from '../ports.js';
import { DAY_MS, dayOf, dayStart, emptyLatency, hourStart } from '../usage-records.js';
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
  const agentWith = (fits: (agentId: string) => boolean): string => {
    for (;;) {
      const agentId = newAgentId();
      if (fits(agentId)) return agentId;
    }
  };
  const agentOn = (master: number): string => agentWith((agentId) => masterOf(keys.agent(agentId)) === master);
  const identityOn = (master: number): ExternalSubject => {
    for (;;) {
      const subject = { issuer: 'https://issuer.example', subject: randomUUID() };
      if (masterOf(keys.externalSubject(subjectKey(subject))) === master) return subject;
    }
  };

  beforeAll(async () => {
    // The node timeout outlasts the freeze: the cluster itself keeps serving the other masters' slots.
    cluster = await startRedisCluster({ nodeTimeoutMs: 15_000 });
    store = await createRedisStore(cluster.url, { keyPrefix: PREFIX, commandTimeoutMs: COMMAND_TIMEOUT_MS });
    // createRedisStore waits at most 2 s for the cluster and goes on connecting in the background; on a loaded
    // machine the tests would meet a store still discovering the masters. Ready: every master answers.
    await eventually(() => store.ping(), 60_000);
  }, 90_000); // beyond startRedisCluster's own 60 s bound: a slow start fails with the message naming its step
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

  /**
   * `first` refused before the command timeout (its master then counted away), then `next` refused before the
   * event loop turns, so before any reply from any server could come.
   */
  async function refusedThenAtOnce(first: () => Promise<unknown>, next: () => Promise<unknown>) {
    const firstRefusal = await refusal(first);
    expect(firstRefusal.error).toBeInstanceOf(StoreUnavailableError);
    expect(firstRefusal.ms).toBeLessThan(COMMAND_TIMEOUT_MS);
    let turned = false;
    setImmediate(() => (turned = true));
    const nextRefusal = await refusal(next);
    expect(nextRefusal.error).toBeInstanceOf(StoreUnavailableError);
    expect(turned).toBe(false);
    return { first: firstRefusal, next: nextRefusal };
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

  it('refuses a read that spans the masters (agent list, audit of everything, usage over time) before the command timeout, then at once; serves it again on the return', async () => {
    const hour = hourStart(Date.now());
    const frozenAgent = agentOn(2);
    // Its usage day hash is on the frozen master too: the usage read touches it whichever master holds the day's index.
    const usageOnFrozen = agentWith((agentId) => masterOf(keys.usageDay(agentId, dayOf(hour))) === 2);
    // Its usage day hash on a healthy master too (a slot of its own, not its agent record's): else its usage read
    // below meets the frozen master, about one run in three.
    const bystander = agentWith(
      (agentId) => masterOf(keys.agent(agentId)) === 0 && masterOf(keys.usageDay(agentId, dayOf(hour))) !== 2,
    );
    for (const agentId of [frozenAgent, usageOnFrozen, bystander]) await store.agents.create(agent(agentId));
    await store.usage.add([usageCell(usageOnFrozen, hour)]);
    await store.audit.append([fixtureEntry({ agentId: frozenAgent }), fixtureEntry({ agentId: bystander })]);
    // A read of usage over time first reads each day's index of agents, each day's in a slot of its own: to be
    // refused at once, not after one round trip to the healthy masters, it must span a day indexed on the frozen
    // master. Where the days are indexed depends on the random key prefix: the range reaches back to such a day.
    let from = dayStart(hour - 48 * 3_600_000);
    while (masterOf(keys.usageAgents(dayOf(from))) !== 2) from -= DAY_MS;
    const spanning = {
      'agent list': () => store.agents.list(),
      'audit of everything': () => store.audit.query({ limit: 10 }),
      'usage over time': () => store.usage.read({ from, to: hour + 3_600_000 }),
    };
    for (const read of Object.values(spanning)) await read();

    cluster.pauseNode(2);
    try {
      // A readiness check in flight at the freeze: given up with the master's commands, not at the timeout.
      const checking = refusal(() => store.ping());
      // The first read of the freeze: its master is asked, and it is given up once counted away.
      const first = await refusal(spanning['agent list']);
      console.info(
        `frozen master: first agent list refused after ${first.ms.toFixed(0)} ms (command timeout ${COMMAND_TIMEOUT_MS} ms)`,
      );
      expect(first.error).toBeInstanceOf(StoreUnavailableError);
      expect(first.ms).toBeLessThan(COMMAND_TIMEOUT_MS);
      const check = await checking;
      console.info(`frozen master: readiness check in flight answered after ${check.ms.toFixed(0)} ms`);
      expect(check.error).toBeInstanceOf(PartialStoreOutage);
      expect(check.ms).toBeLessThan(COMMAND_TIMEOUT_MS);
      // Known away now: every spanning read is refused before any server could answer.
      for (const [name, read] of Object.entries(spanning)) {
        let turned = false;
        setImmediate(() => (turned = true));
        const next = await refusal(read);
        console.info(`frozen master: ${name} refused after ${next.ms.toFixed(1)} ms`);
        expect(next.error, name).toBeInstanceOf(StoreUnavailableError);
        expect(turned, name).toBe(false);
      }
      // One agent's usage on the healthy masters is still read.
      expect(await store.usage.read({ from: hour, to: hour + 3_600_000, agentId: bystander })).toEqual([]);
    } finally {
      cluster.resumeNode(2);
    }
    await eventually(async () => {
      const listed = (await spanning['agent list']()).map((record) => record.agentId);
      expect(listed).toEqual(expect.arrayContaining([frozenAgent, usageOnFrozen, bystander]));
    }, 10_000);
    expect((await spanning['audit of everything']()).records.map((record) => record.agentId)).toEqual(
      expect.arrayContaining([frozenAgent, bystander]),
    );
    expect(await spanning['usage over time']()).toEqual(
      expect.arrayContaining([expect.objectContaining({ agentId: usageOnFrozen, calls: 1 })]),
    );
  }, 30_000);

  it('refuses at once a token identity whose key is on a master counted away, whichever master holds its agent', async () => {
    const away = identityOn(1);
    const healthy = identityOn(2);
    const agentId = agentOn(0);
    await store.agents.create({ ...agent(agentId), externalSubjects: [away, healthy] });
    expect(await store.agents.findByExternalSubject(away)).toBe(agentId);

    cluster.pauseNode(1);
    try {
      // Counted away by the first command that waits on it (here the identity read itself).
      const read = () => store.agents.findByExternalSubject(away);
      const { first, next } = await refusedThenAtOnce(read, read);
      console.info(
        `frozen master: identity key refused after ${first.ms.toFixed(0)} ms, then ${next.ms.toFixed(1)} ms`,
      );
      // The same agent's other identity, its key and the agent on healthy masters, is served.
      expect(await store.agents.findByExternalSubject(healthy)).toBe(agentId);
    } finally {
      cluster.resumeNode(1);
    }
    await eventually(async () => expect(await store.agents.findByExternalSubject(away)).toBe(agentId), 10_000);
  }, 30_000);

  it('refuses whole, at once, a create or delete whose agent index sits on a master away, writing nothing', async () => {
    // The record and its identity on healthy masters; only the listing index on the frozen one.
    const indexedOn = (master: number) =>
      agentWith(
        (agentId) => masterOf(keys.agent(agentId)) === 0 && masterOf(keys.agentIndex(keys.shardOf(agentId))) === master,
      );
    const identity = identityOn(2);
    const created = indexedOn(1);
    const deleted = indexedOn(1);
    await store.agents.create(agent(deleted));

    cluster.pauseNode(1);
    try {
      const { first, next } = await refusedThenAtOnce(
        () => store.agents.create({ ...agent(created), externalSubjects: [identity] }),
        () => store.agents.delete(deleted),
      );
      console.info(
        `frozen master: agent create refused after ${first.ms.toFixed(0)} ms, delete then ${next.ms.toFixed(1)} ms`,
      );
      // Nothing half-written: no record, no claim left on the identity (another agent takes it now), nothing deleted.
      expect(await store.agents.get(created)).toBeNull();
      const other = indexedOn(0);
      await store.agents.create({ ...agent(other), externalSubjects: [identity] });
      expect(await store.agents.findByExternalSubject(identity)).toBe(other);
      expect(await store.agents.get(deleted)).toMatchObject({ agentId: deleted });
    } finally {
      cluster.resumeNode(1);
    }
    await eventually(async () => expect(await store.agents.delete(deleted)).toBe(true), 10_000);
    await store.agents.create(agent(created));
    expect((await store.agents.list()).map((record) => record.agentId)).toEqual(expect.arrayContaining([created]));
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

function agent(agentId: string): AgentRecord {
  return {
    agentId,
    label: 'frozen-master test',
    dailyTokenBudget: 1_000,
    isActive: true,
    allowedTools: null,
    scopes: [],
    externalSubjects: [],
    rateLimit: null,
    createdAt: noon.toISOString(),
    updatedAt: noon.toISOString(),
  };
}

function usageCell(agentId: string, hour: number) {
  return {
    hour,
    agentId,
    tool: 'get_item',
    downstream: 'shop',
    outcome: 'ok',
    calls: 1,
    tokens: 10,
    cacheHits: 0,
    latencyMsSum: 5,
    latency: emptyLatency(),
  };
}
