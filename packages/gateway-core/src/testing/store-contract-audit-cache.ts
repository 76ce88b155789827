/**
 * The contract of the audit log, the response cache and the tool registry
 * state, run by `describeStoreContract` against every adapter.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { AuditEntry, AuditRecord } from '../store/audit-records.js';
import { InvalidInputError } from '../errors.js';
import type { StoreOptions } from '../store/options.js';
import type { GatewayStore } from '../store/ports.js';

type Factory = (options: StoreOptions) => Promise<GatewayStore>;

function entry(overrides: Partial<AuditEntry> = {}): AuditEntry {
  return {
    time: '2030-01-01T00:00:00.000Z',
    kind: 'tool-call',
    agentId: 'agt_a',
    sessionId: 'sess-1',
    tool: 'search',
    outcome: 'ok',
    httpStatus: 200,
    jsonRpcCode: null,
    tokensCharged: 12,
    gatewayMs: 0.4,
    downstreamMs: 3.2,
    cacheTier: null,
    downstreamStatus: 200,
    argsDigest: 'a'.repeat(64),
    actor: null,
    requestId: null,
    detail: null,
    ...overrides,
  };
}

/** Reads every page of a query and returns the records in order. */
async function readAll(
  store: GatewayStore,
  query: { agentId?: string; tool?: string; outcome?: string },
  limit: number,
): Promise<AuditRecord[]> {
  const all: AuditRecord[] = [];
  let before: string | undefined;
  for (let pages = 0; pages < 100; pages++) {
    const page = await store.audit.query({ ...query, limit, ...(before ? { before } : {}) });
    all.push(...page.records);
    if (!page.nextCursor) return all;
    before = page.nextCursor;
  }
  throw new Error('pagination did not end');
}

const vector = (...values: number[]) => Float32Array.from(values);

export function describeAuditCacheContract(createStore: Factory, auditOrder: 'append' | 'per-agent' = 'append'): void {
  const open: GatewayStore[] = [];
  const store = async (options: StoreOptions = {}) => {
    const created = await createStore(options);
    open.push(created);
    return created;
  };
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });

  describe('audit log', () => {
    it('returns appended records newest first with every field and an increasing id', async () => {
      const s = await store();
      const first = entry({ detail: 'first' });
      const second = entry({ outcome: 'cache-hit', cacheTier: 'semantic', detail: 'second' });
      await s.audit.append([first]);
      await s.audit.append([second]);
      const page = await s.audit.query({ agentId: 'agt_a', limit: 10 });
      expect(page.nextCursor).toBeNull();
      expect(page.records).toEqual([
        { ...second, id: expect.stringMatching(/^\d+-\d+$/) },
        { ...first, id: expect.stringMatching(/^\d+-\d+$/) },
      ]);
      expect(page.records[0]!.id).not.toBe(page.records[1]!.id);
    });

    it('keeps the order of a batch and pages through it with the cursor', async () => {
      const s = await store();
      await s.audit.append(Array.from({ length: 25 }, (_, i) => entry({ tokensCharged: i })));
      const first = await s.audit.query({ agentId: 'agt_a', limit: 10 });
      expect(first.records.map((r) => r.tokensCharged)).toEqual([24, 23, 22, 21, 20, 19, 18, 17, 16, 15]);
      expect(first.nextCursor).toBe(first.records[9]!.id);
      const all = await readAll(s, { agentId: 'agt_a' }, 10);
      expect(all.map((r) => r.tokensCharged)).toEqual(Array.from({ length: 25 }, (_, i) => 24 - i));
    });

    it('ends exactly at the last record: a full last page has no cursor', async () => {
      const s = await store();
      await s.audit.append(Array.from({ length: 4 }, () => entry()));
      expect((await s.audit.query({ agentId: 'agt_a', limit: 4 })).nextCursor).toBeNull();
      const first = await s.audit.query({ agentId: 'agt_a', limit: 2 });
      const second = await s.audit.query({ agentId: 'agt_a', limit: 2, before: first.nextCursor! });
      expect(second.records).toHaveLength(2);
      expect(second.nextCursor).toBeNull();
    });

    it('keeps agents apart and shows everyone in the global view, management changes included', async () => {
      const s = await store();
      await s.audit.append([
        entry({ agentId: 'agt_a', tokensCharged: 1 }),
        entry({ agentId: 'agt_b', tokensCharged: 2 }),
        entry({
          kind: 'management',
          agentId: 'agt_b',
          tool: null,
          outcome: 'agent.created',
          actor: 'admin',
          tokensCharged: 0,
        }),
        entry({
          kind: 'management',
          agentId: null,
          sessionId: null,
          tool: null,
          outcome: 'tools.refreshed',
          actor: 'admin',
          tokensCharged: 0,
        }),
      ]);
      expect((await s.audit.query({ agentId: 'agt_a', limit: 10 })).records.map((r) => r.tokensCharged)).toEqual([1]);
      expect((await s.audit.query({ agentId: 'agt_b', limit: 10 })).records.map((r) => r.outcome)).toEqual([
        'agent.created',
        'ok',
      ]);
      const everyone = (await s.audit.query({ limit: 10 })).records;
      const outcomes = everyone.map((r) => r.outcome);
      if (auditOrder === 'append') expect(outcomes).toEqual(['tools.refreshed', 'agent.created', 'ok', 'ok']);
      else expect([...outcomes].sort()).toEqual(['agent.created', 'ok', 'ok', 'tools.refreshed']);
      // One agent's records keep their order in the view of everyone, whatever the adapter.
      expect(everyone.filter((r) => r.agentId === 'agt_b').map((r) => r.outcome)).toEqual(['agent.created', 'ok']);
      expect((await s.audit.query({ agentId: 'agt_nobody', limit: 10 })).records).toEqual([]);
    });

    it('filters by tool and outcome across pages', async () => {
      const s = await store();
      await s.audit.append(
        Array.from({ length: 30 }, (_, i) =>
          entry({
            tool: i % 3 === 0 ? 'orders' : 'search',
            outcome: i % 2 === 0 ? 'ok' : 'forbidden',
            tokensCharged: i,
          }),
        ),
      );
      const orders = await readAll(s, { agentId: 'agt_a', tool: 'orders' }, 3);
      expect(orders.map((r) => r.tokensCharged)).toEqual([27, 24, 21, 18, 15, 12, 9, 6, 3, 0]);
      const forbiddenOrders = await readAll(s, { tool: 'orders', outcome: 'forbidden' }, 2);
      expect(forbiddenOrders.map((r) => r.tokensCharged)).toEqual([27, 21, 15, 9, 3]);
    });

    it('refuses a bad limit or cursor with InvalidInputError', async () => {
      const s = await store();
      for (const query of [
        { limit: 0 },
        { limit: 501 },
        { limit: 1.5 },
        { limit: 10, before: 'nope' },
        { limit: 10, before: '1-2-3' },
      ]) {
        await expect(s.audit.query(query)).rejects.toBeInstanceOf(InvalidInputError);
      }
    });

    it('refuses a cursor of the right shape that no record can have (0-0) as a bad cursor, naming it', async () => {
      const s = await store();
      await s.audit.append([entry()]);
      for (const before of ['0-0', '00-0', '0000000000000000-0000000000000000']) {
        const refused = await s.audit.query({ limit: 10, before }).catch((error: unknown) => error);
        expect(refused).toBeInstanceOf(InvalidInputError);
        expect((refused as InvalidInputError).fields.map((f) => f.path)).toEqual(['before']);
      }
    });

    it('reads from the largest cursor the shape allows, and from the smallest usable one', async () => {
      const s = await store();
      await s.audit.append([entry({ tokensCharged: 1 }), entry({ tokensCharged: 2 })]);
      const all = await s.audit.query({ limit: 10, before: '9999999999999999-9999999999999999' });
      expect(all.records.map((r) => r.tokensCharged)).toEqual([2, 1]);
      expect(await s.audit.query({ limit: 10, before: '0-1' })).toEqual({ records: [], nextCursor: null });
    });

    it('caps each agent by count, keeping the newest', async () => {
      const s = await store({ auditRetention: { maxRecordsPerAgent: 10 } });
      for (let i = 0; i < 3; i++)
        await s.audit.append(Array.from({ length: 100 }, (_, j) => entry({ tokensCharged: i * 100 + j })));
      const kept = await readAll(s, { agentId: 'agt_a' }, 500);
      // Redis trims whole stream nodes (MAXLEN ~, 100 entries a node), so it may keep up to a node more.
      expect(kept.length).toBeGreaterThanOrEqual(10);
      expect(kept.length).toBeLessThanOrEqual(10 + 100);
      expect(kept.map((r) => r.tokensCharged)).toEqual(Array.from({ length: kept.length }, (_, i) => 299 - i));
      expect((await readAll(s, {}, 500)).length).toBe(300);
    });

    it('shows nothing older than the age cap', async () => {
      const s = await store({ auditRetention: { maxAgeMs: 300 } });
      await s.audit.append([entry({ tokensCharged: 1 })]);
      await sleep(400);
      await s.audit.append([entry({ tokensCharged: 2 })]);
      expect((await s.audit.query({ agentId: 'agt_a', limit: 10 })).records.map((r) => r.tokensCharged)).toEqual([2]);
      expect((await s.audit.query({ limit: 10 })).records.map((r) => r.tokensCharged)).toEqual([2]);
    });

    it('appends nothing for an empty batch', async () => {
      const s = await store();
      await s.audit.append([]);
      expect(await s.audit.query({ limit: 10 })).toEqual({ records: [], nextCursor: null });
    });
  });

  describe('response cache', () => {
    it('returns a response until its TTL passes', async () => {
      const { cache } = await store();
      await cache.set('search:k1', '{"hits":[1]}', 300);
      expect(await cache.get('search:k1')).toBe('{"hits":[1]}');
      expect(await cache.get('search:other')).toBeNull();
      await sleep(400);
      expect(await cache.get('search:k1')).toBeNull();
    });

    it('replaces a response stored again under the same key', async () => {
      const { cache } = await store();
      await cache.set('k', 'old', 60_000);
      await cache.set('k', 'new', 60_000);
      expect(await cache.get('k')).toBe('new');
    });

    it('keeps candidate vectors exactly, per group, replacing by response key', async () => {
      const { cache } = await store();
      const v1 = vector(0.1, -0.25, 1e-7, 3.5);
      await cache.addCandidate('g1', { responseKey: 'r1', vector: v1 }, 60_000, 32);
      await cache.addCandidate('g1', { responseKey: 'r2', vector: vector(1, 0, 0, 0) }, 60_000, 32);
      await cache.addCandidate('g1', { responseKey: 'r2', vector: vector(0, 1, 0, 0) }, 60_000, 32);
      await cache.addCandidate('g2', { responseKey: 'r3', vector: vector(0, 0, 1, 0) }, 60_000, 32);
      const g1 = (await cache.candidates('g1')).sort((a, b) => a.responseKey.localeCompare(b.responseKey));
      expect(g1).toEqual([
        { responseKey: 'r1', vector: v1 },
        { responseKey: 'r2', vector: vector(0, 1, 0, 0) },
      ]);
      expect(g1[0]!.vector).toBeInstanceOf(Float32Array);
      expect(await cache.candidates('g2')).toEqual([{ responseKey: 'r3', vector: vector(0, 0, 1, 0) }]);
      expect(await cache.candidates('g-unknown')).toEqual([]);
    });

    it('bounds a group, dropping the oldest candidates first', async () => {
      const { cache } = await store();
      for (let i = 0; i < 40; i++) {
        await cache.addCandidate('g', { responseKey: `r${i}`, vector: vector(i) }, 60_000 + i, 32);
      }
      const kept = (await cache.candidates('g')).map((c) => c.responseKey);
      expect(kept).toHaveLength(32);
      expect(kept.sort()).toEqual(Array.from({ length: 32 }, (_, i) => `r${i + 8}`).sort());
    });

    it('drops candidates after their TTL', async () => {
      const { cache } = await store();
      await cache.addCandidate('g', { responseKey: 'short', vector: vector(1) }, 200, 32);
      await cache.addCandidate('g', { responseKey: 'long', vector: vector(2) }, 60_000, 32);
      await sleep(300);
      expect((await cache.candidates('g')).map((c) => c.responseKey)).toEqual(['long']);
    });
  });

  describe('generation counters', () => {
    it('starts at 0 and goes up by one per bump', async () => {
      const { toolRegistryState, cacheGeneration } = await store();
      expect(await toolRegistryState.generation()).toBe(0);
      expect(await toolRegistryState.bump()).toBe(1);
      expect(await toolRegistryState.bump()).toBe(2);
      expect(await toolRegistryState.generation()).toBe(2);
      // The cache generation is a separate counter.
      expect(await cacheGeneration.generation()).toBe(0);
      expect(await cacheGeneration.bump()).toBe(1);
      expect(await toolRegistryState.generation()).toBe(2);
    });
  });
}
