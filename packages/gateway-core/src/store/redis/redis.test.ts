import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { StoreUnavailableError } from '../../errors.js';
import { isRedisServerAvailable, startRedisServer, type RedisServer } from '../../testing/redis-server.js';
import { describeStoreContract } from '../../testing/store-contract.js';
import { checkStore } from '../check.js';
import { createStore } from '../create-store.js';
import type { StoreOptions } from '../options.js';
import type { GatewayStore } from '../ports.js';
import { AUDIT_SCAN_LIMIT } from './audit.js';
import { Keys } from './keys.js';
import { subjectKey } from '../agent-records.js';
import { createClient } from 'redis';
import { auditEntry } from '../../testing/audit-fixtures.js';
import { eventually } from '../../testing/eventually.js';

const available = isRedisServerAvailable();
if (!available && process.env.CI === 'true') {
  throw new Error(
    'redis-server is not installed, and CI=true forbids skipping the Redis store tests. Install it (apt-get install redis-server) or set REDIS_SERVER_BIN.',
  );
}
if (!available) {
  console.warn('\n⚠ redis-server not found: SKIPPING the Redis store tests (set CI=true to make this a failure).\n');
}

describe.runIf(available)('Redis store', () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  // A fresh key prefix per store keeps tests apart on one server.
  describeStoreContract('Redis', (options) =>
    createStore(server.url, { keyPrefix: `test:${randomUUID()}:`, ...options }),
  );

  describe('external identities after a writer died', () => {
    const alice = { issuer: 'https://idp.example', subject: 'alice' };
    const open: GatewayStore[] = [];
    afterEach(async () => {
      await Promise.all(open.splice(0).map((s) => s.close()));
    });
    const claimKey = (prefix: string) => new Keys(prefix, 1).externalSubject(subjectKey(alice));
    const record = (agentId: string) => ({
      agentId,
      label: agentId,
      dailyTokenBudget: 1,
      isActive: true,
      allowedTools: null,
      scopes: [],
      externalSubjects: [alice],
      rateLimit: null,
      createdAt: 'a',
      updatedAt: 'a',
    });

    it('takes over a lasting claim whose agent does not name the identity (died before releasing it)', async () => {
      const prefix = `test:${randomUUID()}:`;
      const store = await createStore(server.url, { keyPrefix: prefix });
      open.push(store);
      await store.agents.create({ ...record('agt_old'), externalSubjects: [] });
      const raw = createClient({ url: server.url });
      await raw.connect();
      await raw.set(claimKey(prefix), 'agt_old');
      await raw.close();
      expect(await store.agents.findByExternalSubject(alice)).toBeNull();
      await store.agents.create(record('agt_new'));
      expect(await store.agents.findByExternalSubject(alice)).toBe('agt_new');
    });

    it('never takes over a pending claim: its writer may still be writing the record', async () => {
      const prefix = `test:${randomUUID()}:`;
      const store = await createStore(server.url, { keyPrefix: prefix });
      open.push(store);
      const raw = createClient({ url: server.url });
      await raw.connect();
      await raw.set(claimKey(prefix), 'agt_writer', { PX: 30_000 });
      await raw.close();
      await expect(store.agents.create(record('agt_new'))).rejects.toMatchObject({
        code: 'conflict',
        ownerAgentId: 'agt_writer',
      });
      expect(await store.agents.get('agt_new')).toBeNull();
    });
  });

  describe('shared by several gateway instances', () => {
    const open: GatewayStore[] = [];
    const instance = async (prefix: string, options: StoreOptions = {}) => {
      const store = await createStore(server.url, { keyPrefix: prefix, ...options });
      open.push(store);
      return store;
    };
    afterEach(async () => {
      await Promise.all(open.splice(0).map((s) => s.close()));
    });

    it('sees one instance’s revocations, sessions and agents from another', async () => {
      const prefix = `test:${randomUUID()}:`;
      const [a, b] = [await instance(prefix), await instance(prefix)];
      await a.revocation.revokeAll('agt_x');
      expect(await b.revocation.generation('agt_x')).toBe(1);
      await a.sessions.create(
        { sessionId: 's1', agentId: 'agt_x', protocolVersion: '2024-11-05', clientInfo: null, createdAt: 'now' },
        60_000,
        100,
      );
      expect(await b.sessions.touch('s1', 60_000)).toMatchObject({ agentId: 'agt_x' });
      await a.agents.create({
        agentId: 'agt_x',
        label: 'x',
        dailyTokenBudget: 1,
        isActive: true,
        allowedTools: null,
        scopes: [],
        externalSubjects: [],
        rateLimit: null,
        createdAt: 'a',
        updatedAt: 'a',
      });
      await b.agents.update('agt_x', { isActive: false }, 'b');
      expect((await a.agents.get('agt_x'))?.isActive).toBe(false);
    });

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

    it('keeps one budget across instances under 200 concurrent reservations', async () => {
      const prefix = `test:${randomUUID()}:`;
      const [a, b] = [await instance(prefix), await instance(prefix)];
      const now = new Date();
      const results = await Promise.all(
        Array.from({ length: 200 }, (_, i) => (i % 2 ? a : b).budget.reserve('agt_x', 300, 7, now)),
      );
      const granted = results.reduce((sum, r) => sum + (r.ok ? r.reservation.granted : 0), 0);
      expect(granted).toBe(294);
      expect((await a.budget.usage('agt_x', now)).reserved).toBe(294);
    });

    it('gives a record the same id in the agent and global streams under concurrent appends from two instances', async () => {
      const prefix = `test:${randomUUID()}:`;
      const [a, b] = [await instance(prefix), await instance(prefix)];
      const batch = (store: GatewayStore, tool: string) =>
        Promise.all(Array.from({ length: 20 }, (_, i) => store.audit.append([auditEntry({ tool, tokensCharged: i })])));
      await Promise.all([batch(a, 'from-a'), batch(b, 'from-b')]);
      const agentIds = (await b.audit.query({ agentId: 'agt_x', limit: 100 })).records.map((r) => r.id);
      const globalIds = (await a.audit.query({ limit: 100 })).records.map((r) => r.id);
      expect(agentIds).toHaveLength(40);
      expect(agentIds).toEqual(globalIds);
    });

    it('sees a tool registry bump from another instance', async () => {
      const prefix = `test:${randomUUID()}:`;
      const [a, b] = [await instance(prefix), await instance(prefix)];
      await a.toolRegistryState.bump();
      expect(await b.toolRegistryState.generation()).toBe(1);
    });

    it('keys are namespaced by the prefix', async () => {
      const a = await instance(`test:${randomUUID()}:`);
      const b = await instance(`test:${randomUUID()}:`);
      await a.revocation.revokeAll('agt_x');
      expect(await b.revocation.generation('agt_x')).toBe(0);
    });
  });

  describe('audit queries', () => {
    it('stop a filtered scan after AUDIT_SCAN_LIMIT records and hand back a cursor to go on from', async () => {
      const store = await createStore(server.url, { keyPrefix: `test:${randomUUID()}:` });
      try {
        await store.audit.append([auditEntry({ tool: 'rare' })]);
        for (let i = 0; i < AUDIT_SCAN_LIMIT / 1000 + 1; i++) {
          await store.audit.append(Array.from({ length: 1000 }, () => auditEntry({ tool: 'common' })));
        }
        const first = await store.audit.query({ tool: 'rare', limit: 10 });
        expect(first.records).toEqual([]);
        expect(first.nextCursor).toMatch(/^\d+-\d+$/);
        const second = await store.audit.query({ tool: 'rare', limit: 10, before: first.nextCursor! });
        expect(second.records.map((r) => r.tool)).toEqual(['rare']);
        expect(second.nextCursor).toBeNull();
      } finally {
        await store.close();
      }
    });
  });

  describe('when Redis goes away', () => {
    it('fails fast with StoreUnavailableError and recovers by itself when Redis returns', async () => {
      const errors: Error[] = [];
      const store = await createStore(server.url, {
        keyPrefix: `test:${randomUUID()}:`,
        onError: (e) => errors.push(e),
      });
      try {
        await store.ping();
        await server.stop();

        const started = Date.now();
        await expect(store.ping()).rejects.toBeInstanceOf(StoreUnavailableError);
        await expect(store.budget.reserve('agt_x', 100, 10, new Date())).rejects.toBeInstanceOf(StoreUnavailableError);
        await expect(store.revocation.generation('agt_x')).rejects.toMatchObject({
          httpStatus: 503,
          jsonRpcCode: -32003,
        });
        expect(await checkStore(store)).toEqual({
          status: 'Unhealthy',
          description: expect.stringMatching(/^The store is unavailable: /),
        });
        expect(Date.now() - started).toBeLessThan(1_000);
        expect(errors.length).toBe(1);

        await server.restart();
        await eventually(() => store.ping());
        expect(await checkStore(store)).toEqual({ status: 'Healthy' });
        expect(await store.budget.reserve('agt_x', 100, 10, new Date())).toMatchObject({ ok: true });
      } finally {
        await store.close();
      }
    });

    it('fails a command Redis does not answer within commandTimeoutMs, and works again after', async () => {
      const store = await createStore(server.url, { keyPrefix: `test:${randomUUID()}:`, commandTimeoutMs: 300 });
      try {
        await store.ping();
        // CLIENT PAUSE holds every client's commands: a connected Redis that does not answer.
        const { createClient } = await import('redis');
        const admin = createClient({ url: server.url });
        await admin.connect();
        await admin.sendCommand(['CLIENT', 'PAUSE', '1500', 'ALL']);
        const started = Date.now();
        await expect(store.revocation.generation('agt_x')).rejects.toBeInstanceOf(StoreUnavailableError);
        expect(Date.now() - started).toBeGreaterThanOrEqual(250);
        expect(Date.now() - started).toBeLessThan(1_000);
        await admin.sendCommand(['CLIENT', 'UNPAUSE']);
        await admin.close();
        await eventually(() => store.ping());
      } finally {
        await store.close();
      }
    });

    it('arms no per-command timer: the watchdog alone bounds commands (no AbortSignal.timeout per command)', async () => {
      const store = await createStore(server.url, { keyPrefix: `test:${randomUUID()}:` });
      const timeout = vi.spyOn(AbortSignal, 'timeout');
      try {
        await Promise.all(Array.from({ length: 20 }, () => store.revocation.generation('agt_x')));
        expect(timeout).not.toHaveBeenCalled();
      } finally {
        timeout.mockRestore();
        await store.close();
      }
    });

    it('starts without Redis, reports unavailable, and connects once Redis is there', async () => {
      await server.stop();
      const store = await createStore(server.url, { keyPrefix: `test:${randomUUID()}:`, connectTimeoutMs: 200 });
      try {
        await expect(store.ping()).rejects.toBeInstanceOf(StoreUnavailableError);
        await server.restart();
        await eventually(() => store.ping());
      } finally {
        await store.close();
      }
    });
  });
});
