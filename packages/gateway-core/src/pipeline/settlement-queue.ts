import { StoreUnavailableError } from '../errors.js';
import { DEFAULT_RESERVATION_TTL_MS } from '../store/options.js';
import type { BudgetLedger, Reservation } from '../store/ports.js';

/** How the pipeline hands over a finished call's budget write. */
export interface Settlements {
  /** Charges `tokens` to the reservation, after the reply. Never throws, never waits. */
  settle(reservation: Reservation, tokens: number): void;
  /** Frees the whole reservation (the call failed), after the reply. Never throws, never waits. */
  release(reservation: Reservation): void;
  /** Frees a reservation the ledger has not answered for yet, once it has (when it was granted). */
  releaseWhenGranted(agentId: string, pending: Promise<Reservation | null>): void;
}

export interface SettlementQueueOptions {
  ledger: BudgetLedger;
  /** Told when a write fails: retried later, or given up (its reservation then lapses uncharged). */
  onError?: (error: unknown, reservation: Reservation, willRetry: boolean) => void;
  /** Keep retrying a write through a store outage for this long; past it the reservation has lapsed anyway. */
  giveUpAfterMs?: number;
  /** Longest a budget read waits for this instance's writes of that agent. Default 2 s. */
  maxReadWaitMs?: number;
  /** Backoff between retries: doubles from the first delay up to the longest. Default 100 ms to 1 s. */
  retryDelayMs?: { first: number; longest: number };
}

interface PendingWrite {
  reservation: Reservation;
  /** Tokens to charge, or null to release. */
  tokens: number | null;
  startedAt: number;
  attempts: number;
  /** Called once, when the write has landed or been given up. */
  finished?: () => void;
}

/**
 * Settles and releases budget reservations after the reply has gone out, so
 * the agent never waits for that store round trip. Nothing is given away by
 * it: the reservation holds at least what will be charged until the write
 * lands, so no concurrent call can spend past the budget meanwhile.
 *
 * Writes queued in one turn of the event loop go out together (one pipelined
 * round trip for many calls). A store outage is retried with backoff until
 * the reservation would have lapsed by itself; settle and release are
 * idempotent in the ledger, so a retry of a write that did land charges
 * nothing twice. Budget reads on this instance first wait for its pending
 * writes of that agent (`settled`), so an agent's own next request sees its
 * charges; `drain` writes everything before a shutdown.
 */
export class SettlementQueue implements Settlements {
  readonly #options: Required<SettlementQueueOptions>;
  readonly #queued: PendingWrite[] = [];
  /** Per agent, the writes not yet landed (queued, in flight or waiting to retry). */
  readonly #inFlight = new Map<string, Set<Promise<void>>>();
  /** Writes waiting for their retry, by timer. */
  readonly #retrying = new Map<NodeJS.Timeout, PendingWrite>();
  #flushScheduled = false;
  /** Set by `drain`: from then on every write is tried once, never scheduled for a retry. */
  #draining = false;

  constructor(options: SettlementQueueOptions) {
    this.#options = {
      onError: () => {},
      giveUpAfterMs: DEFAULT_RESERVATION_TTL_MS,
      maxReadWaitMs: 2_000,
      retryDelayMs: { first: 100, longest: 1_000 },
      ...options,
    };
  }

  settle(reservation: Reservation, tokens: number): void {
    this.#enqueue({
      reservation,
      tokens,
      startedAt: performance.now(),
      attempts: 0,
      finished: this.#track(reservation.agentId),
    });
  }

  release(reservation: Reservation): void {
    this.#enqueue({
      reservation,
      tokens: null,
      startedAt: performance.now(),
      attempts: 0,
      finished: this.#track(reservation.agentId),
    });
  }

  releaseWhenGranted(agentId: string, pending: Promise<Reservation | null>): void {
    // Tracked from now, so a budget read that follows waits for the grant and its release.
    const finished = this.#track(agentId);
    pending.then(
      (reservation) => {
        if (reservation === null) finished();
        else this.#enqueue({ reservation, tokens: null, startedAt: performance.now(), attempts: 0, finished });
      },
      () => finished(),
    );
  }

  /** Resolves once this instance's writes of `agentId` queued so far have landed (or after `maxReadWaitMs`). */
  async settled(agentId: string): Promise<void> {
    const pending = this.#inFlight.get(agentId);
    if (pending === undefined || pending.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.#options.maxReadWaitMs)));
    await Promise.race([Promise.allSettled([...pending]), gaveUp]);
    clearTimeout(timer);
  }

  /**
   * Writes everything queued now, retries included, each tried once more
   * (and nothing retried after that); for a graceful shutdown.
   */
  async drain(): Promise<void> {
    this.#draining = true;
    const pending = [...this.#inFlight.values()].flatMap((set) => [...set]);
    for (const [timer, write] of this.#retrying) {
      clearTimeout(timer);
      this.#queued.push(write);
    }
    this.#retrying.clear();
    this.#flush(true);
    await Promise.allSettled(pending);
  }

  /** Writes queued or retrying. */
  get pending(): number {
    let count = 0;
    for (const set of this.#inFlight.values()) count += set.size;
    return count;
  }

  /** Counts a write of the agent as pending until the returned callback is called. */
  #track(agentId: string): () => void {
    let landed!: () => void;
    const done = new Promise<void>((resolve) => (landed = resolve));
    const agentWrites = this.#inFlight.get(agentId) ?? new Set();
    agentWrites.add(done);
    this.#inFlight.set(agentId, agentWrites);
    return () => {
      agentWrites.delete(done);
      if (agentWrites.size === 0) this.#inFlight.delete(agentId);
      landed();
    };
  }

  #enqueue(write: PendingWrite): void {
    this.#queued.push(write);
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    // After the current turn: the reply is written first, and this turn's other calls join the batch.
    setImmediate(() => this.#flush(false));
  }

  #flush(finalAttempt: boolean): void {
    this.#flushScheduled = false;
    // Issued in one tick, the writes travel to Redis as one pipeline.
    for (const write of this.#queued.splice(0)) void this.#write(write, finalAttempt);
  }

  async #write(write: PendingWrite, finalAttempt: boolean): Promise<void> {
    const { ledger } = this.#options;
    try {
      if (write.tokens === null) await ledger.release(write.reservation);
      else await ledger.settle(write.reservation, write.tokens);
      this.#finish(write);
    } catch (error) {
      write.attempts += 1;
      const lastChance =
        finalAttempt || this.#draining || performance.now() - write.startedAt >= this.#options.giveUpAfterMs;
      const willRetry = error instanceof StoreUnavailableError && !lastChance;
      this.#options.onError(error, write.reservation, willRetry);
      if (willRetry) this.#retryLater(write);
      else this.#finish(write);
    }
  }

  #retryLater(write: PendingWrite): void {
    const { first, longest } = this.#options.retryDelayMs;
    const delay = Math.min(first * 2 ** (write.attempts - 1), longest);
    const timer = setTimeout(() => {
      this.#retrying.delete(timer);
      this.#queued.push(write);
      this.#flush(false);
    }, delay).unref();
    this.#retrying.set(timer, write);
  }

  #finish(write: PendingWrite): void {
    write.finished?.();
    write.finished = undefined;
  }
}
