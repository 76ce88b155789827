import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../errors.js';
import { isRedisServerAvailable, startRedisServer, type RedisServer } from '../../testing/redis-server.js';
import { describeStoreContract } from '../contract.js';
import { checkStore } from '../check.js';
import { createStore } from '../create-store.js';
import type { StoreOptions } from '../options.js';
import type { GatewayStore } from '../ports.js';

const available = isRedisServerAvailable();
if (!available && process.env.CI === 'true') {
  throw new Error('redis-server is not installed, and CI=true forbids skipping the Redis store tests. Install it (apt-get install redis-server) or set REDIS_SERVER_BIN.');
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
  describeStoreContract('Redis', (options) => createStore(server.url, { keyPrefix: `test:${randomUUID()}:`, ...options }));

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
      await a.sessions.create({ sessionId: 's1', agentId: 'agt_x', protocolVersion: '2024-11-05', clientInfo: null, createdAt: 'now' }, 60_000);
      expect(await b.sessions.touch('s1', 60_000)).toMatchObject({ agentId: 'agt_x' });
      await a.agents.create({ agentId: 'agt_x', label: 'x', dailyTokenBudget: 1, isActive: true, allowedTools: null, scopes: [], createdAt: 'a', updatedAt: 'a' });
      await b.agents.update('agt_x', { isActive: false }, 'b');
      expect((await a.agents.get('agt_x'))?.isActive).toBe(false);
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

    it('keys are namespaced by the prefix', async () => {
      const a = await instance(`test:${randomUUID()}:`);
      const b = await instance(`test:${randomUUID()}:`);
      await a.revocation.revokeAll('agt_x');
      expect(await b.revocation.generation('agt_x')).toBe(0);
    });
  });

  describe('when Redis goes away', () => {
    it('fails fast with StoreUnavailableError and recovers by itself when Redis returns', async () => {
      const errors: Error[] = [];
      const store = await createStore(server.url, { keyPrefix: `test:${randomUUID()}:`, onError: (e) => errors.push(e) });
      try {
        await store.ping();
        await server.stop();

        const started = Date.now();
        await expect(store.ping()).rejects.toBeInstanceOf(StoreUnavailableError);
        await expect(store.budget.reserve('agt_x', 100, 10, new Date())).rejects.toBeInstanceOf(StoreUnavailableError);
        await expect(store.revocation.generation('agt_x')).rejects.toMatchObject({ httpStatus: 503, jsonRpcCode: -32003 });
        expect(await checkStore(store)).toEqual({ status: 'Unhealthy', description: expect.stringMatching(/^The store is unavailable: /) });
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

async function eventually(probe: () => Promise<unknown>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await probe();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(50);
    }
  }
}
