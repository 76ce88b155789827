import { randomBytes } from 'node:crypto';
import type { AuditEvent } from '../audit/trail.js';
import type { UsageStore } from '../store/ports.js';
import { addCell, cellKey, emptyLatency, hourStart, latencyBucket, type UsageCell } from '../store/usage-records.js';

export interface UsageRecorderOptions {
  store: UsageStore;
  /** Told when the store refuses a flush (the counters are kept and retried). */
  onError?: (error: unknown) => void;
  /** How long counters gather before a write: calls of one cell in that time cost one increment. Default 250 ms. */
  flushDelayMs?: number;
  /** Cells waiting for the store, at most; past it new calls are dropped and counted. Default 50 000. */
  maxCells?: number;
  clock?: () => number;
}

const RETRY_MIN_MS = 250;
const RETRY_MAX_MS = 5_000;

/** Write ids: random per process, then a counter, so no two instances' flushes share one. */
const WRITE_ID_PREFIX = `${randomBytes(9).toString('base64url')}.`;
let writeCounter = 0;

/** One flush: its cells and the id that makes the store write them once, however often they are sent. */
interface UsageWrite {
  id: string;
  cells: UsageCell[];
}

/**
 * Keeps usage as calls happen: told every audit event at the point the
 * trail is (so each call counts once, as it is audited once), it adds a
 * tools/call to its hour's cell in memory, and writes the cells that
 * changed a moment later in one store call. A failed write is sent again
 * with backoff exactly as it was, under the same write id: a write that timed
 * out may still have landed (a stalled Redis runs it when it wakes), and the
 * store then writes nothing the second time. Calls made meanwhile go in a
 * write of their own. `flush` writes everything, for a graceful shutdown.
 */
export class UsageRecorder {
  #pending = new Map<string, UsageCell>();
  /** A write the store refused or did not answer, sent again before anything newer. */
  #unsent: UsageWrite | null = null;
  readonly #store: UsageStore;
  readonly #onError: (error: unknown) => void;
  readonly #flushDelayMs: number;
  readonly #maxCells: number;
  readonly #clock: () => number;
  #timer: NodeJS.Timeout | null = null;
  #writing: Promise<void> | null = null;
  #failures = 0;
  #dropped = 0;

  constructor(options: UsageRecorderOptions) {
    this.#store = options.store;
    this.#onError = options.onError ?? (() => {});
    this.#flushDelayMs = options.flushDelayMs ?? 250;
    this.#maxCells = options.maxCells ?? 50_000;
    this.#clock = options.clock ?? Date.now;
  }

  /** Counts a tools/call event; other events are not usage. Never throws and never waits. */
  record(event: AuditEvent): void {
    if (event.kind !== 'tool-call') return;
    const at = event.time !== undefined ? Date.parse(event.time) : this.#clock();
    this.#add(cellOf(event, Number.isNaN(at) ? this.#clock() : at));
    this.#schedule(this.#flushDelayMs);
  }

  /** Writes every pending cell, waiting for a write in progress. Resolves (never rejects) when done or refused. */
  async flush(): Promise<void> {
    this.#cancelTimer();
    while (this.#writing) await this.#writing;
    await this.#write();
  }

  /** Calls not counted because the pending cells were at their cap while the store was failing. */
  get dropped(): number {
    return this.#dropped;
  }

  /** Cells not yet known to be in the store. */
  get pending(): number {
    return this.#pending.size + (this.#unsent?.cells.length ?? 0);
  }

  #add(cell: UsageCell): void {
    const key = cellKey(cell);
    const held = this.#pending.get(key);
    if (held) addCell(held, cell);
    else if (this.pending < this.#maxCells) this.#pending.set(key, cell);
    else this.#dropped += cell.calls;
  }

  #schedule(delayMs: number): void {
    if (this.#writing || this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      void this.#write();
    }, delayMs).unref();
  }

  #cancelTimer(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }

  #write(): Promise<void> {
    this.#writing ??= this.#writeOnce().then((retryInMs) => {
      this.#writing = null;
      if (retryInMs !== null) this.#schedule(retryInMs);
      else if (this.#pending.size > 0) this.#schedule(this.#flushDelayMs);
    });
    return this.#writing;
  }

  /**
   * The unsent write again, then one with every pending cell; null
   * when the store took them all, else the backoff before retrying.
   */
  async #writeOnce(): Promise<number | null> {
    try {
      if (this.#unsent) await this.#send(this.#unsent);
      if (this.#pending.size > 0) {
        const write = { id: WRITE_ID_PREFIX + (writeCounter++).toString(36), cells: [...this.#pending.values()] };
        this.#pending = new Map();
        this.#unsent = write;
        await this.#send(write);
      }
      this.#failures = 0;
      return null;
    } catch (error) {
      this.#report(error);
      this.#failures += 1;
      return Math.min(RETRY_MIN_MS * 2 ** (this.#failures - 1), RETRY_MAX_MS);
    }
  }

  async #send(write: UsageWrite): Promise<void> {
    await this.#store.add(write.cells, write.id);
    this.#unsent = null;
  }

  #report(error: unknown): void {
    try {
      this.#onError(error);
    } catch {
      // A handler that throws must not stop the counting.
    }
  }
}

/**
 * One call as a cell of its hour. The trail names only tools the registry knows (any other name is caller input), so
 * neither does a cell.
 */
export function cellOf(event: AuditEvent, at: number): UsageCell {
  const latencyMs = Math.max(0, Math.round((event.gatewayMs ?? 0) + (event.downstreamMs ?? 0)));
  const latency = emptyLatency();
  latency[latencyBucket(latencyMs)] = 1;
  return {
    hour: hourStart(at),
    agentId: event.agentId ?? '',
    tool: event.tool ?? '',
    downstream: event.downstream ?? '',
    outcome: event.outcome,
    calls: 1,
    tokens: event.tokensCharged ?? 0,
    cacheHits: event.outcome === 'cache-hit' ? 1 : 0,
    latencyMsSum: latencyMs,
    latency,
  };
}
