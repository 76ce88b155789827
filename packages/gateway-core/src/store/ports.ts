/**
 * Store ports in domain words. The gateway never sees a generic get/set: each
 * port says what the domain needs, so the Redis adapter can make each
 * operation one atomic round trip and the in-memory adapter stays obvious.
 * One contract suite (`testing/store-contract.ts`) runs against every adapter.
 */

import type { AuditEntry, AuditPage, AuditQuery } from './audit-records.js';
import type { UsageCell, UsageRange } from './usage-records.js';

export interface AgentRecord {
  agentId: string;
  label: string;
  dailyTokenBudget: number;
  isActive: boolean;
  /** null = every tool is allowed (contract 2.1). */
  allowedTools: string[] | null;
  scopes: string[];
  /**
   * Identities at trusted OAuth issuers that act as this agent. Each one
   * belongs to one agent at most; records stored before the field read as [].
   */
  externalSubjects: ExternalSubject[];
  /** Calls per minute with a burst; null = no rate limit (what a record stored before the field reads as). */
  rateLimit: RateLimit | null;
  /**
   * When the agent was last deactivated (ISO 8601), or null. External tokens
   * issued before it stay refused after a reactivation, as the gateway's own
   * tokens do through the revocation generation. Absent on records written
   * before the field (and by callers that never deactivate): read as null.
   */
  deactivatedAt?: string | null;
  /**
   * Search mode for this agent (issue 28): `on`, `off` or `auto`, over the
   * gateway's `Gw:Catalog:Search`; null or absent: the gateway's setting.
   */
  toolSearch?: 'off' | 'on' | 'auto' | null;
  /** Tools listed beside search_tools and call_tool in search mode (those the agent may call); absent: none. */
  pinnedTools?: string[];
  /** The user confirms each call of a write tool before it is sent (issue 26 item 6); absent: false. */
  confirmWrites?: boolean;
  createdAt: string;
  updatedAt: string;
}

/**
 * An identity at an external OAuth issuer: the value of the claim
 * the issuer is configured to name agents by (`sub` by default).
 */
export interface ExternalSubject {
  issuer: string;
  subject: string;
}

export type AgentPatch = Partial<
  Pick<
    AgentRecord,
    | 'label'
    | 'dailyTokenBudget'
    | 'isActive'
    | 'allowedTools'
    | 'scopes'
    | 'externalSubjects'
    | 'rateLimit'
    | 'deactivatedAt'
    | 'toolSearch'
    | 'pinnedTools'
    | 'confirmWrites'
  >
>;

/**
 * An agent's call rate: `callsPerMinute` on average, and up to `burst` calls
 * at once after a quiet spell (a bucket of `burst` calls refilled at
 * `callsPerMinute`, kept as GCRA: one timestamp per agent).
 */
export interface RateLimit {
  callsPerMinute: number;
  burst: number;
}

export type RateLimitTake = { ok: true } | { ok: false; retryAfterMs: number };

/**
 * Per-agent call rates, shared by every instance on the store. `take` counts
 * one call against the agent's limit in one atomic step, or refuses it with
 * how long until one would pass (nothing is counted then); `giveBack`
 * uncounts a call taken but never made. What is kept for an agent lapses
 * once its bucket is full again, so an idle agent leaves nothing behind.
 * `now` is the caller's clock; an adapter shared by several processes may
 * use one clock of its own instead (Redis uses the server's `TIME`), so
 * instances whose clocks disagree still agree on every agent's rate.
 */
export interface RateLimiter {
  take(agentId: string, limit: RateLimit, now: Date): Promise<RateLimitTake>;
  giveBack(agentId: string, limit: RateLimit, now: Date): Promise<void>;
}

export interface AgentStore {
  /**
   * Throws when an agent with the same id already exists (ids are random, so
   * that is a bug), and SubjectTakenError when one of its external subjects
   * belongs to another agent (nothing is written then).
   */
  create(agent: AgentRecord): Promise<void>;
  get(agentId: string): Promise<AgentRecord | null>;
  /**
   * Every agent, or StoreUnavailableError: never a part of the list (on a
   * Redis Cluster with a master away it is refused at once, see `AuditLog.query`).
   */
  list(): Promise<AgentRecord[]>;
  /**
   * Applies the patch atomically; null when the agent does not exist.
   * SubjectTakenError when the patch gives it another agent's external subject.
   */
  update(agentId: string, patch: AgentPatch, updatedAt: string): Promise<AgentRecord | null>;
  /** false when the agent did not exist. Its external subjects are free again. */
  delete(agentId: string): Promise<boolean>;
  /** The agent an external identity belongs to, or null. */
  findByExternalSubject(subject: ExternalSubject): Promise<string | null>;
}

/**
 * Token revocation as a per-agent generation: every token carries the
 * generation current when it was issued; revoking bumps it, so every older
 * token is rejected at once, on every instance sharing the store, without
 * keeping a list of token ids and without clock-precision races.
 */
export interface RevocationStore {
  generation(agentId: string): Promise<number>;
  /** Returns the new generation. */
  revokeAll(agentId: string): Promise<number>;
  forget(agentId: string): Promise<void>;
}

export interface Reservation {
  agentId: string;
  /** UTC day the tokens are charged to, `YYYY-MM-DD`. */
  day: string;
  id: string;
  granted: number;
}

export interface ReserveOptions {
  /**
   * Smallest grant the caller can work with; defaults to `wanted` (all or
   * nothing). With a lower minimum the ledger grants what is left, so a
   * caller can shrink a call to the remaining budget without a racy read.
   */
  minimum?: number;
}

/**
 * Why nothing was granted: `exhausted` when today's settled tokens leave less
 * than the minimum, so no settlement can ever make room; `held` when the
 * room is there but taken by reservations of calls in flight, which may
 * settle below what they hold (a caller may wait for them).
 */
export type ReserveRefusal = 'exhausted' | 'held';

export type ReserveResult =
  | { ok: true; reservation: Reservation; remaining: number }
  | { ok: false; remaining: number; reason: ReserveRefusal };

export interface BudgetUsage {
  day: string;
  /** Tokens settled today. */
  used: number;
  /** Tokens held by reservations not yet settled or released. */
  reserved: number;
}

/**
 * Per agent, per UTC day. reserve holds tokens before a call so concurrent
 * calls can never spend past the budget; settle charges what was really used
 * and frees the rest; release frees all of it. Reservations expire after
 * `reservationTtlMs` so a crashed caller cannot hold budget forever; expired
 * reservations are dropped by the next reserve or usage read of that agent.
 * A reservation is charged at most once: settle and release return false
 * (and change nothing) when it was already settled, released or dropped.
 */
export interface BudgetLedger {
  reserve(
    agentId: string,
    dailyBudget: number,
    wanted: number,
    now: Date,
    options?: ReserveOptions,
  ): Promise<ReserveResult>;
  /**
   * Charges `min(used, granted)` to the reservation's day: a call never
   * spends more than it reserved, so the budget is never exceeded.
   */
  settle(reservation: Reservation, used: number): Promise<boolean>;
  release(reservation: Reservation): Promise<boolean>;
  usage(agentId: string, now: Date): Promise<BudgetUsage>;
  /**
   * Clears today's settled usage (contract 4.2 budget reset). Reservations of
   * calls in flight stay, so those calls are still charged when they settle.
   */
  reset(agentId: string, now: Date): Promise<void>;
  /**
   * Calls `listener` each time this process settles, releases or resets a
   * reservation of the agent through this ledger (tokens may have come free);
   * returns the function that stops it. Writes by other processes sharing the
   * store are not seen, so a caller waiting for room must also poll.
   */
  onFreed?(agentId: string, listener: () => void): () => void;
}

export interface SessionRecord {
  sessionId: string;
  agentId: string;
  protocolVersion: string;
  clientInfo: { name: string; version: string } | null;
  createdAt: string;
}

/**
 * Open MCP sessions, each expiring after `idleTtlMs` without use. An agent
 * holds at most `maxPerAgent` of them: opening one more ends the agent's
 * least recently used (oldest idle) session, whichever instance it was opened
 * or last used on. Expired and deleted sessions do not count.
 */
export interface SessionStore {
  /**
   * A new, unguessable session id for the agent, 32 url-safe characters. A
   * store may shape it to keep the session beside its agent (a Redis Cluster:
   * the same slot, so the same master).
   */
  newSessionId(agentId: string): string;
  /**
   * Stores the session and, when its agent already holds `maxPerAgent` live
   * sessions, ends the least recently used ones so the agent holds exactly
   * `maxPerAgent` with this one. One atomic step across instances. Returns the
   * ids of the sessions it ended (empty when the agent was under its cap).
   */
  create(session: SessionRecord, idleTtlMs: number, maxPerAgent: number): Promise<string[]>;
  /** Returns the session and extends its idle expiry; null when unknown or expired. */
  touch(sessionId: string, idleTtlMs: number): Promise<SessionRecord | null>;
  delete(sessionId: string): Promise<boolean>;
}

/**
 * The audit trail, kept per agent and as one stream of everything, each
 * capped by count and by age (`StoreOptions.auditRetention`). Records are
 * read newest first, one page at a time.
 */
export interface AuditLog {
  /** Appends in order; each entry gets an id that increases in append order. */
  append(entries: readonly AuditEntry[]): Promise<void>;
  /**
   * Newest first. `nextCursor` is null on the last page. An adapter may stop
   * a filtered scan early (Redis reads at most `AUDIT_SCAN_LIMIT` records per
   * query) and return a shorter page with a cursor to read on from. A page
   * is never missing the records of a part of the store: when a part cannot
   * be read (a Redis Cluster master counted away) the query fails with
   * StoreUnavailableError, at once.
   */
  query(query: AuditQuery): Promise<AuditPage>;
}

/**
 * Usage over time (`usage-records.ts`): hourly counters per agent, tool,
 * downstream and outcome, added to as calls happen and kept for
 * `StoreOptions.usageRetentionDays` days (whole UTC days).
 */
export interface UsageStore {
  /**
   * Adds each cell's counters to its hour's (several cells of one identity
   * add up). `writeId`: the same id on every send of the same cells; a store
   * whose write can land after its caller gave up (Redis) writes them once
   * per id, so a retry of a write that timed out but landed adds nothing.
   */
  add(cells: readonly UsageCell[], writeId?: string): Promise<void>;
  /**
   * One cell per identity and hour in the range, in no particular order; nothing of hours past retention. All of
   * them or StoreUnavailableError (as `AuditLog.query`): never totals missing a part of the store.
   */
  read(range: UsageRange): Promise<UsageCell[]>;
}

/** One earlier response the semantic tier can compare a new call with. */
export interface SemanticCandidate {
  /** Exact-tier key of the cached response this candidate stands for. */
  responseKey: string;
  /** Unit vector(s) of the call's free-text arguments, concatenated. */
  vector: Float32Array;
}

/**
 * Cached tool responses. The exact tier maps a key to a response text; the
 * semantic tier keeps, per group key (a tool and its exactly-compared
 * arguments), a bounded set of candidates, so a lookup compares a handful of
 * vectors however large the cache grows.
 */
export interface ResponseCache {
  get(key: string): Promise<string | null>;
  set(key: string, text: string, ttlMs: number): Promise<void>;
  /** Live candidates of a group, in no particular order. */
  candidates(groupKey: string): Promise<SemanticCandidate[]>;
  /**
   * Adds (or replaces, by responseKey) a candidate that lives `ttlMs`; when
   * the group then holds more than `maxCandidates`, expired and then the
   * oldest ones are dropped.
   */
  addCandidate(groupKey: string, candidate: SemanticCandidate, ttlMs: number, maxCandidates: number): Promise<void>;
}

/**
 * A counter every instance can read. Bumping it tells every instance that
 * something shared changed: the tool registry (an admin refresh, so others
 * re-read /gw/schema) or the downstream's data (a write, so cached answers
 * of earlier reads are no longer served).
 */
export interface GenerationCounter {
  generation(): Promise<number>;
  /** Returns the new generation. */
  bump(): Promise<number>;
}

/** @deprecated name kept for readers of the first API; use GenerationCounter. */
export type ToolRegistryState = GenerationCounter;

/** The answer of a stream whose client went away, kept for a resume (`GET /mcp` with `Last-Event-ID`). */
export interface StreamAnswer {
  /** The session the stream belongs to: only its owner may resume it. */
  sessionId: string;
  /** The final SSE message, as JSON text. */
  message: string;
}

/**
 * Answers of streams a client lost before their last event, kept a short
 * while so the client can resume on any instance. Written only when a client
 * went away: nothing on the path of a call whose client stays.
 */
export interface StreamStore {
  /** Keeps the answer, then tells every instance watching the stream. */
  keep(streamId: string, answer: StreamAnswer, ttlMs: number): Promise<void>;
  /** Null when unknown, not (yet) kept, or expired. */
  get(streamId: string): Promise<StreamAnswer | null>;
  /**
   * Calls `onKept` when an answer may have been kept for the stream, by any
   * instance on the store (a notice, so a resume need not poll). Resolves
   * once the notices are heard, or soon without them when they cannot be
   * (the store down): the caller then reads again on its own. Resolves with
   * the function that stops watching; never rejects.
   */
  watch(streamId: string, onKept: () => void): Promise<() => void>;
}

/** Everything the gateway keeps; one adapter instance per process. */
/** What an attempt counter holds for one subject: failures since it was last cleared, and when the latest was. */
export interface AttemptRecord {
  failures: number;
  /** Epoch milliseconds of the latest failure. */
  lastFailureAt: number;
}

/**
 * Failed attempts per subject (the admin sign-in counts them per client
 * address), shared by every instance on the store. A record expires `ttlMs`
 * after its latest failure; `clear` forgets it at once. The policy (how many
 * failures, how long to wait) is the caller's: the counter only counts.
 */
export interface AttemptCounter {
  /** Counts one more failure at `now` (epoch ms) in one atomic step; returns the record after it. */
  recordFailure(subject: string, now: number, ttlMs: number): Promise<AttemptRecord>;
  /** null when the subject has no failures (never, cleared, or expired). */
  read(subject: string): Promise<AttemptRecord | null>;
  clear(subject: string): Promise<void>;
}

/** Something that changes what `tools/list` answers: for one agent, or (`agentId` null) for every agent. */
export interface ToolListChange {
  agentId: string | null;
}

/**
 * Tells every gateway instance on the store that a tool list changed, so
 * each can notify the `subscriptions/listen` streams it holds (MCP
 * 2026-07-28). Fire-and-forget: a change missed while the store is away is
 * made good by `tools/list`'s `ttlMs`.
 */
export interface ChangeFeed {
  publish(change: ToolListChange): Promise<void>;
  /**
   * `listener` hears every change published from now on, by any instance, this one included; returns the unsubscribe.
   */
  subscribe(listener: (change: ToolListChange) => void): () => void;
}

/**
 * Keys that may be used once: the first `redeem` of a key within its time to
 * live wins, every later one (on any instance) loses. What makes a signed
 * write confirmation (an MRTR `requestState`) single-use.
 */
export interface SingleUseMarks {
  /** True the first time `key` is redeemed; false while an earlier redemption is kept (`ttlMs`). */
  redeem(key: string, ttlMs: number): Promise<boolean>;
}

export interface GatewayStore {
  readonly kind: 'memory' | 'redis';
  readonly agents: AgentStore;
  readonly revocation: RevocationStore;
  readonly budget: BudgetLedger;
  readonly sessions: SessionStore;
  readonly streams: StreamStore;
  readonly audit: AuditLog;
  readonly usage: UsageStore;
  readonly cache: ResponseCache;
  readonly toolRegistryState: GenerationCounter;
  /** Bumped by every successful write through the gateway; part of every cache key. */
  readonly cacheGeneration: GenerationCounter;
  /** Failed admin-key sign-ins per client address (`SignInThrottle`). */
  readonly signInAttempts: AttemptCounter;
  /** Per-agent call rates (`AgentRecord.rateLimit`). */
  readonly rateLimits: RateLimiter;
  /** Tool-list changes, across instances (Redis pub/sub; in-process on the memory store). */
  readonly changes: ChangeFeed;
  /** Write confirmations already used (`SingleUseMarks`). */
  readonly redeemed: SingleUseMarks;
  /**
   * One real round trip (to every server holding data); throws when the
   * store is unreachable, and `PartialStoreOutage` when only part of it is.
   */
  ping(): Promise<void>;
  close(): Promise<void>;
}
