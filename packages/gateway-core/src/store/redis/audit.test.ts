import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEntry } from '../../testing/audit-fixtures.js';
import { isRedisServerAvailable, startRedisServer, type RedisServer } from '../../testing/redis-server.js';
import { createStore } from '../create-store.js';
import { MAINTAIN_EVERY_MS } from './audit.js';
import { Keys } from './keys.js';

/** What the contract suite cannot see: how often the streams are trimmed by age and given their expiry. */
describe.runIf(isRedisServerAvailable())('Redis audit log upkeep', () => {
  let server: RedisServer;
  let raw: ReturnType<typeof createClient>;
  const maxAgeMs = 60_000;

  beforeAll(async () => {
    server = await startRedisServer();
    raw = createClient({ url: server.url });
    await raw.connect();
  });
  afterAll(async () => {
    await raw?.close();
    await server?.stop();
  });

  it('sets the expiry of both streams to the age cap plus the upkeep interval, at most once per interval', async () => {
    const prefix = `test:${randomUUID()}:`;
    const keys = new Keys(prefix, 1);
    const streams = [keys.auditAll(0), keys.auditAgent('agt_a')];
    const store = await createStore(server.url, { keyPrefix: prefix, auditRetention: { maxAgeMs } });
    try {
      await store.audit.append([auditEntry({ agentId: 'agt_a' })]);
      for (const key of streams) {
        const ttl = await raw.pTTL(key);
        expect(ttl).toBeGreaterThan(maxAgeMs + MAINTAIN_EVERY_MS - 1_000);
        expect(ttl).toBeLessThanOrEqual(maxAgeMs + MAINTAIN_EVERY_MS);
      }
      // Within the interval an append only adds: the expiry taken away here stays away.
      for (const key of streams) await raw.persist(key);
      await store.audit.append([auditEntry({ agentId: 'agt_a' })]);
      for (const key of streams) expect(await raw.pTTL(key)).toBe(-1);
      // Past it, the next append sets it again.
      await new Promise((resolve) => setTimeout(resolve, MAINTAIN_EVERY_MS + 50));
      await store.audit.append([auditEntry({ agentId: 'agt_a' })]);
      for (const key of streams) expect(await raw.pTTL(key)).toBeGreaterThan(maxAgeMs);
      expect(await raw.xLen(keys.auditAgent('agt_a'))).toBe(3);
    } finally {
      await store.close();
    }
  });

  it('keeps up a stream it has not written yet at its first append, whatever it did for other streams', async () => {
    const prefix = `test:${randomUUID()}:`;
    const keys = new Keys(prefix, 1);
    const store = await createStore(server.url, { keyPrefix: prefix, auditRetention: { maxAgeMs } });
    try {
      await store.audit.append([auditEntry({ agentId: 'agt_a' })]);
      await store.audit.append([auditEntry({ agentId: 'agt_b' })]);
      expect(await raw.pTTL(keys.auditAgent('agt_b'))).toBeGreaterThan(maxAgeMs);
    } finally {
      await store.close();
    }
  });
});
