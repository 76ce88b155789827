import {
  auditRetention,
  DEFAULT_MEMORY_CACHE_MAX_ENTRIES,
  DEFAULT_RESERVATION_TTL_MS,
  usageRetentionDays,
  type StoreOptions,
} from '../options.js';
import type { GatewayStore } from '../ports.js';
import { MemoryAgentStore } from './agents.js';
import { MemoryAuditLog } from './audit.js';
import { MemoryBudgetLedger } from './budget.js';
import { MemoryResponseCache } from './cache.js';
import { MemoryRevocationStore } from './revocation.js';
import { MemorySessionStore } from './sessions.js';
import { MemoryStreamStore } from './streams.js';
import { MemoryGenerationCounter } from './generation-counter.js';
import { MemoryAttemptCounter } from './attempts.js';
import { MemoryRateLimiter } from './rate-limits.js';
import { MemoryChangeFeed } from './changes.js';
import { MemoryUsageStore } from './usage.js';
import { MemorySingleUseMarks } from './single-use-marks.js';

/**
 * The embedded store: everything in this process's memory. Right for one
 * instance and for development; state is lost on restart and not shared.
 */
export function createMemoryStore(options: StoreOptions = {}): GatewayStore {
  const clock = options.clock ?? Date.now;
  return {
    kind: 'memory',
    agents: new MemoryAgentStore(),
    revocation: new MemoryRevocationStore(),
    budget: new MemoryBudgetLedger(options.reservationTtlMs ?? DEFAULT_RESERVATION_TTL_MS),
    sessions: new MemorySessionStore(clock),
    streams: new MemoryStreamStore(clock),
    audit: new MemoryAuditLog(auditRetention(options), clock),
    usage: new MemoryUsageStore(usageRetentionDays(options), clock),
    cache: new MemoryResponseCache(options.memoryCacheMaxEntries ?? DEFAULT_MEMORY_CACHE_MAX_ENTRIES, clock),
    toolRegistryState: new MemoryGenerationCounter(),
    cacheGeneration: new MemoryGenerationCounter(),
    signInAttempts: new MemoryAttemptCounter(clock),
    rateLimits: new MemoryRateLimiter(),
    changes: new MemoryChangeFeed(),
    redeemed: new MemorySingleUseMarks(clock),
    async ping() {},
    async close() {},
  };
}
