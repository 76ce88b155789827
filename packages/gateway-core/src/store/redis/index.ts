import { RedisSingleUseMarks } from './single-use-marks.js';
import { ConfigError } from '../../errors.js';
import { auditRetention, DEFAULT_RESERVATION_TTL_MS, usageRetentionDays, type StoreOptions } from '../options.js';
import type { GatewayStore } from '../ports.js';
import { parseRedisAddress } from './address.js';
import { AgentReads } from './agent-reads.js';
import { RedisAgentStore } from './agents.js';
import { RedisAuditLog } from './audit.js';
import { RedisBudgetLedger } from './budget.js';
import { RedisResponseCache } from './cache.js';
import { createConnection } from './connection.js';
import { Keys } from './keys.js';
import { RedisRevocationStore } from './revocation.js';
import { RedisSessionStore } from './sessions.js';
import { RedisStreamStore } from './streams.js';
import { RedisGenerationCounter, ShardedGenerationCounter } from './generation-counter.js';
import { RedisAttemptCounter } from './attempts.js';
import { RedisRateLimiter } from './rate-limits.js';
import { RedisChangeFeed } from './changes.js';
import { RedisUsageStore } from './usage.js';

export const DEFAULT_KEY_PREFIX = 'tollgate:';

/**
 * How many keys each global key is split into on a cluster (see `Keys`):
 * enough to spread over 16 masters; a single server keeps one.
 */
export const CLUSTER_SHARDS = 16;

/**
 * The shared store: every gateway instance on the same Redis or Redis
 * Cluster (and key prefix) sees the same agents, revocations, budgets and
 * sessions. Resolves even when Redis is down; see `connectInBackground`.
 */
export async function createRedisStore(url: string, options: StoreOptions = {}): Promise<GatewayStore> {
  const address = parseRedisAddress(url);
  const keyPrefix = options.keyPrefix ?? DEFAULT_KEY_PREFIX;
  if (address.kind === 'cluster' && /[{}]/.test(keyPrefix)) {
    // A hash tag in the prefix would put every key in one slot: a cluster of one master.
    throw new ConfigError([{ path: 'store.keyPrefix', message: 'must not contain { or } on a Redis Cluster' }]);
  }
  const connection = createConnection(address, {
    commandTimeoutMs: options.commandTimeoutMs ?? 2_000,
    connectTimeoutMs: options.connectTimeoutMs ?? 2_000,
    onError: options.onError ?? (() => {}),
  });
  await connection.connect(options.connectTimeoutMs ?? 2_000);
  const { client } = connection;
  const keys = new Keys(keyPrefix, connection.cluster ? CLUSTER_SHARDS : 1);
  const agentReads = new AgentReads(client, keys);
  const streams = new RedisStreamStore(client, keys, connection.cluster);
  const changes = new RedisChangeFeed(connection, keys.toolListChanges(), options.onError);

  return {
    kind: 'redis',
    agents: new RedisAgentStore(client, keys, agentReads),
    revocation: new RedisRevocationStore(client, keys, agentReads),
    budget: new RedisBudgetLedger(client, keys, options.reservationTtlMs ?? DEFAULT_RESERVATION_TTL_MS),
    sessions: new RedisSessionStore(client, keys),
    streams,
    audit: new RedisAuditLog(client, keys, auditRetention(options), connection.cluster),
    usage: new RedisUsageStore(client, keys, usageRetentionDays(options)),
    cache: new RedisResponseCache(client, keys),
    toolRegistryState: new RedisGenerationCounter(client, keys.toolRegistryGeneration()),
    cacheGeneration: new ShardedGenerationCounter(
      client,
      Array.from({ length: keys.shards }, (_, shard) => keys.cacheGeneration(shard)),
    ),
    signInAttempts: new RedisAttemptCounter(client, (subject) => keys.signInAttempts(subject)),
    rateLimits: new RedisRateLimiter(client, (agentId) => keys.rateLimit(agentId)),
    changes,
    redeemed: new RedisSingleUseMarks(client, (key) => keys.redeemed(key)),
    // Each server's round trip is timed on its own (connection.ts), so a cluster can answer in part.
    ping: () => connection.ping(),
    async close() {
      await changes.close();
      await streams.close();
      await connection.close();
    },
  };
}
