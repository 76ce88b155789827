import { AsyncResource } from 'node:async_hooks';
import type { AuditLog } from '../store/ports.js';
import { MAX_AUDIT_DETAIL_LENGTH, type AuditEntry } from '../store/audit-records.js';
import { isoNow } from './iso-time.js';

/** What a caller reports: `kind` and `outcome`, and whichever other fields apply (the rest default to null or 0). */
export type AuditEvent = Pick<AuditEntry, 'kind' | 'outcome'> & Partial<Omit<AuditEntry, 'kind' | 'outcome'>>;

export interface AuditTrailOptions {
  log: AuditLog;
  /** Gets every entry once, for a structured log line (e.g. `(entry) => logger.info({ audit: entry })`). */
  logLine?: (entry: AuditEntry) => void;
  /** Told when the store refuses a batch (kept and retried) or the log line fails. */
  onError?: (error: unknown) => void;
  /** Entries waiting for the store, at most; past it the oldest are dropped and counted. Default 10 000. */
  maxQueue?: number;
  /** Entries per store append. Default 100. */
  batchSize?: number;
  clock?: () => Date;
  /**
   * The request an event without a `requestId` belongs to (e.g. the one whose
   * async context is running), asked as it is recorded. Absent, such events
   * have none.
   */
  requestId?: () => string | null | undefined;
}

const RETRY_MIN_MS = 250;
const RETRY_MAX_MS = 5_000;

/**
 * The audit trail as the pipeline sees it: `record` only queues (the hot
 * path pays for an array push), and the queue is written in batches on a
 * later turn of the event loop. A failing store never reaches the caller:
 * the batch goes back to the head of the queue and is retried with backoff,
 * and the log line was already written, so the record is never only in
 * memory. `flush` writes everything queued, for a graceful shutdown.
 */
export class AuditTrail {
  readonly #queue: AuditEntry[] = [];
  /**
   * How many entries at the head of the queue were logged already: a batch the
   * store refused goes back to the head, and new entries join at the tail, so
   * the logged ones are always first (a count, where a WeakSet of them cost
   * ~0.4 us an entry).
   */
  #loggedAtHead = 0;
  readonly #options: Required<Omit<AuditTrailOptions, 'logLine' | 'clock' | 'requestId'>> &
    Pick<AuditTrailOptions, 'logLine'>;
  /** The time of an event that brings none, as ISO 8601. */
  readonly #now: () => string;
  readonly #requestId: () => string | null | undefined;
  #draining: Promise<void> | null = null;
  #timer: NodeJS.Timeout | NodeJS.Immediate | null = null;
  #failures = 0;
  #dropped = 0;

  constructor(options: AuditTrailOptions) {
    const { clock, requestId, ...rest } = options;
    this.#options = {
      maxQueue: 10_000,
      batchSize: 100,
      onError: () => {},
      ...rest,
    };
    this.#now = clock ? () => clock().toISOString() : isoNow;
    this.#requestId = requestId ?? (() => null);
  }

  /** Queues one entry. Never throws and never waits. */
  record(event: AuditEvent): void {
    try {
      this.#queue.push(toEntry(event, this.#now, this.#requestId));
      this.#enforceLimit();
      this.#schedule(0);
    } catch (error) {
      this.#report(error);
    }
  }

  /**
   * Writes every queued entry, waiting for a write in progress. Resolves (it
   * never rejects) when the queue is empty or the store refused a batch; the
   * refused entries stay queued and were logged.
   */
  async flush(): Promise<void> {
    this.#cancelTimer();
    while (this.#draining) await this.#draining;
    await this.#drain();
  }

  /** Entries dropped because the queue was full while the store was failing. */
  get dropped(): number {
    return this.#dropped;
  }

  /** Entries not yet in the store. */
  get pending(): number {
    return this.#queue.length;
  }

  /**
   * Bound where the trail was made (at start-up, outside any request): a
   * timer set while a request is handled would otherwise run the drain in
   * that request's async context, and every log line of the batch, other
   * requests' records included, would carry its request id.
   */
  readonly #run = AsyncResource.bind(() => {
    this.#timer = null;
    void this.#drain();
  });

  #schedule(delayMs: number): void {
    if (this.#draining || this.#timer) return;
    this.#timer = delayMs === 0 ? setImmediate(this.#run) : setTimeout(this.#run, delayMs).unref();
  }

  #cancelTimer(): void {
    if (this.#timer === null) return;
    clearImmediate(this.#timer as NodeJS.Immediate);
    clearTimeout(this.#timer as NodeJS.Timeout);
    this.#timer = null;
  }

  #drain(): Promise<void> {
    this.#draining ??= this.#writeQueue().then((retryInMs) => {
      this.#draining = null;
      // Entries queued while the last batch was in flight found the drain still running.
      if (retryInMs !== null) this.#schedule(retryInMs);
      else if (this.#queue.length > 0) this.#schedule(0);
    });
    return this.#draining;
  }

  /** Batch after batch until the queue is empty (null) or the store fails (the backoff before retrying). */
  async #writeQueue(): Promise<number | null> {
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0, this.#options.batchSize);
      const logged = Math.min(this.#loggedAtHead, batch.length);
      this.#loggedAtHead -= logged;
      this.#logLines(batch, logged);
      try {
        await this.#options.log.append(batch);
        this.#failures = 0;
      } catch (error) {
        this.#queue.unshift(...batch);
        this.#loggedAtHead += batch.length;
        this.#enforceLimit();
        this.#report(error);
        this.#failures += 1;
        return Math.min(RETRY_MIN_MS * 2 ** (this.#failures - 1), RETRY_MAX_MS);
      }
    }
    return null;
  }

  /** Writes the log line of each entry of the batch from `from` on: those before it were logged when first tried. */
  #logLines(batch: AuditEntry[], from: number): void {
    const { logLine } = this.#options;
    if (!logLine) return;
    for (let i = from; i < batch.length; i++) {
      try {
        logLine(batch[i]!);
      } catch (error) {
        this.#report(error);
      }
    }
  }

  #enforceLimit(): void {
    const excess = this.#queue.length - this.#options.maxQueue;
    if (excess <= 0) return;
    this.#queue.splice(0, excess);
    this.#loggedAtHead = Math.max(this.#loggedAtHead - excess, 0);
    this.#dropped += excess;
  }

  #report(error: unknown): void {
    try {
      this.#options.onError(error);
    } catch {
      // An error handler that throws must not take the trail down with it.
    }
  }
}

/**
 * Copies the known fields one by one: whatever else a caller passes (raw
 * arguments by mistake, a response body) never reaches the store or a log.
 * One object literal, then the optional fields in a fixed order, so every
 * entry has one of a few shapes (and the log line its usual key order).
 */
function toEntry(event: AuditEvent, now: () => string, requestId: () => string | null | undefined): AuditEntry {
  const entry: AuditEntry = {
    time: event.time ?? now(),
    kind: event.kind,
    agentId: event.agentId ?? null,
    sessionId: event.sessionId ?? null,
    tool: event.tool ?? null,
    outcome: event.outcome,
    httpStatus: event.httpStatus ?? null,
    jsonRpcCode: event.jsonRpcCode ?? null,
    tokensCharged: event.tokensCharged ?? 0,
    gatewayMs: event.gatewayMs ?? null,
    downstreamMs: event.downstreamMs ?? null,
    cacheTier: event.cacheTier ?? null,
    downstreamStatus: event.downstreamStatus ?? null,
    argsDigest: event.argsDigest ?? null,
    actor: event.actor ?? null,
    requestId: (event.requestId === undefined ? requestId() : event.requestId) ?? null,
    detail: event.detail == null ? null : event.detail.slice(0, MAX_AUDIT_DETAIL_LENGTH),
  };
  if (event.downstream !== undefined) entry.downstream = event.downstream;
  if (event.callId !== undefined) entry.callId = event.callId;
  // Only present for calls made with an OAuth issuer's token, so other records keep their shape.
  if (event.issuer !== undefined) entry.issuer = event.issuer;
  if (event.subject !== undefined) entry.subject = event.subject;
  // Only for calls made through search mode's call_tool: `tool` names the tool it ran.
  if (event.via !== undefined) entry.via = event.via;
  return entry;
}
