import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isRedisServerAvailable, startRedisServer, type RedisServer } from '../../testing/redis-server.js';
import { createStore } from '../create-store.js';
import type { GatewayStore } from '../ports.js';

/** What the contract suite cannot see: the key, its lifetime, and whose clock decides. */
describe.runIf(isRedisServerAvailable())('Redis rate limiter', () => {
  let server: RedisServer;
  let store: GatewayStore;
  let raw: ReturnType<typeof createClient>;
  const prefix = `test:${randomUUID()}:`;

  beforeAll(async () => {
    server = await startRedisServer();
    store = await createStore(server.url, { keyPrefix: prefix });
    raw = createClient({ url: server.url });
    await raw.connect();
  });
  afterAll(async () => {
    await raw?.close();
    await store?.close();
    await server?.stop();
  });

  it("keeps one key per agent, under the agent's hash tag, living until its bucket is full again", async () => {
    const limit = { callsPerMinute: 60, burst: 3 };
    await store.rateLimits.take('agt_k', limit, new Date());
    await store.rateLimits.take('agt_k', limit, new Date());
    expect(await raw.keys(`${prefix}*`)).toEqual([`${prefix}rate:{agt_k}`]);
    // Two calls at one a second: full again in 2 s.
    const ttl = await raw.pTTL(`${prefix}rate:{agt_k}`);
    expect(ttl).toBeGreaterThan(1_500);
    expect(ttl).toBeLessThanOrEqual(2_000);
  });

  it('leaves no key once the bucket is full again, and none after a refusal or a give-back that empties it', async () => {
    const limit = { callsPerMinute: 6_000, burst: 1 }; // one call every 10 ms
    await store.rateLimits.take('agt_gone', limit, new Date());
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(await raw.exists(`${prefix}rate:{agt_gone}`)).toBe(0);
    const slow = { callsPerMinute: 1, burst: 1 };
    await store.rateLimits.take('agt_back', slow, new Date());
    await store.rateLimits.giveBack('agt_back', slow, new Date());
    expect(await raw.exists(`${prefix}rate:{agt_back}`)).toBe(0);
  });

  it("judges by the server's clock: callers whose clocks are hours apart agree", async () => {
    const limit = { callsPerMinute: 60, burst: 1 };
    const hour = 3_600_000;
    expect((await store.rateLimits.take('agt_skew', limit, new Date(Date.now() - hour))).ok).toBe(true);
    const refused = await store.rateLimits.take('agt_skew', limit, new Date(Date.now() + hour));
    expect(refused).toEqual({ ok: false, retryAfterMs: expect.any(Number) });
    expect((refused as { retryAfterMs: number }).retryAfterMs).toBeLessThanOrEqual(1_000);
  });
});
