import { auditRetention, DEFAULT_RESERVATION_TTL_MS, type StoreOptions } from '../options.js';
import type { GatewayStore } from '../ports.js';
import { RedisAgentStore } from './agents.js';
import { RedisAuditLog } from './audit.js';
import { RedisBudgetLedger } from './budget.js';
import { RedisResponseCache } from './cache.js';
import { command, connectInBackground, createConnection } from './connection.js';
import { Keys } from './keys.js';
import { RedisRevocationStore } from './revocation.js';
import { RedisSessionStore } from './sessions.js';
import { RedisStreamStore } from './streams.js';
import { RedisGenerationCounter } from './generation-counter.js';
import { RedisAttemptCounter } from './attempts.js';

export const DEFAULT_KEY_PREFIX = 'tollgate:';

/**
 * The shared store: every gateway instance on the same Redis (and key
 * prefix) sees the same agents, revocations, budgets and sessions. Resolves
 * even when Redis is down; see `connectInBackground`.
 */
export async function createRedisStore(url: string, options: StoreOptions = {}): Promise<GatewayStore> {
  const client = createConnection({
    url,
    commandTimeoutMs: options.commandTimeoutMs ?? 2_000,
    connectTimeoutMs: options.connectTimeoutMs ?? 2_000,
    onError: options.onError ?? (() => {}),
  });
  await connectInBackground(client, options.connectTimeoutMs ?? 2_000);
  const keys = new Keys(options.keyPrefix ?? DEFAULT_KEY_PREFIX);

  return {
    kind: 'redis',
    agents: new RedisAgentStore(client, keys),
    revocation: new RedisRevocationStore(client, keys),
    budget: new RedisBudgetLedger(client, keys, options.reservationTtlMs ?? DEFAULT_RESERVATION_TTL_MS),
    sessions: new RedisSessionStore(client, keys),
    streams: new RedisStreamStore(client, keys),
    audit: new RedisAuditLog(client, keys, auditRetention(options)),
    cache: new RedisResponseCache(client, keys),
    toolRegistryState: new RedisGenerationCounter(client, keys.toolRegistryGeneration()),
    cacheGeneration: new RedisGenerationCounter(client, keys.cacheGeneration()),
    signInAttempts: new RedisAttemptCounter(client, (subject) => keys.signInAttempts(subject)),
    async ping() {
      await command(client, () => client.ping());
    },
    async close() {
      // close waits for replies in flight; with Redis gone there are none to wait for.
      if (client.isReady) await client.close();
      else if (client.isOpen) client.destroy();
    },
  };
}
