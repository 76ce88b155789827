import { DEFAULT_USAGE_RETENTION_DAYS } from './usage-records.js';

/** Tuning shared by every store adapter; each default is what production wants. */
export interface StoreOptions {
  /** How long a budget reservation holds tokens before it lapses. Default 5 minutes. */
  reservationTtlMs?: number;
  /** Redis only: prefix of every key. Default `tollgate:`. */
  keyPrefix?: string;
  /** Redis only: a command that gets no answer within this fails as unavailable. Default 2000 ms. */
  commandTimeoutMs?: number;
  /** Redis only: how long to wait for a connection. Default 2000 ms. */
  connectTimeoutMs?: number;
  /** Redis only: told about connection errors (the client keeps reconnecting). */
  onError?: (error: Error) => void;
  /** How much of the audit trail is kept. */
  auditRetention?: AuditRetention;
  /** Whole UTC days of usage counters kept (`Gw:Usage:RetentionDays`). Default 35. */
  usageRetentionDays?: number;
  /** In-memory only: most cached responses kept, least recently used dropped first. Default 10 000. */
  memoryCacheMaxEntries?: number;
  /** Milliseconds since the epoch; injectable for tests of idle, cache and audit expiry. Default `Date.now`. */
  clock?: () => number;
}

export const DEFAULT_RESERVATION_TTL_MS = 5 * 60 * 1000;

/**
 * Audit records are dropped when either cap is reached, oldest first. Redis
 * trims approximately (`MAXLEN ~`, `MINID ~`), so a stream can briefly hold
 * a few dozen records more, and by age at most once a second per stream, so
 * a record can stay stored up to a second past the age cap (it is never
 * shown past it); the in-memory store trims exactly.
 */
export interface AuditRetention {
  /** Per agent. Default 10 000. */
  maxRecordsPerAgent?: number;
  /** In the stream of every record (the admin view). Default 100 000. */
  maxRecords?: number;
  /** Default 30 days. */
  maxAgeMs?: number;
}

export const DEFAULT_AUDIT_RETENTION: Required<AuditRetention> = {
  maxRecordsPerAgent: 10_000,
  maxRecords: 100_000,
  maxAgeMs: 30 * 24 * 60 * 60 * 1000,
};

export const DEFAULT_MEMORY_CACHE_MAX_ENTRIES = 10_000;

/** Whole days of usage kept: the option, or `DEFAULT_USAGE_RETENTION_DAYS`. */
export function usageRetentionDays(options: StoreOptions): number {
  return options.usageRetentionDays ?? DEFAULT_USAGE_RETENTION_DAYS;
}

export function auditRetention(options: StoreOptions): Required<AuditRetention> {
  return { ...DEFAULT_AUDIT_RETENTION, ...definedOnly(options.auditRetention ?? {}) };
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
