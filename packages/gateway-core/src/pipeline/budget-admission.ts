import type { BudgetLedger, Reservation, ReserveResult } from '../store/ports.js';
import type { Settlements } from './settlement-queue.js';

/**
 * How a call's budget step ended:
 * - `exhausted`: today's settled tokens already leave less than the call's
 *   minimum, so nothing in flight can make room (refused at once);
 * - `held`: what is left was held by calls in flight for the whole wait (or
 *   too many calls of the agent were waiting already);
 * - `cancelled`: the caller went away while it waited.
 */
export type BudgetAdmissionOutcome =
  | { ok: true; reservation: Reservation }
  | { ok: false; reason: 'exhausted' }
  | { ok: false; reason: 'held'; waitedMs: number }
  | { ok: false; reason: 'cancelled' };

export interface AdmitRequest {
  agentId: string;
  dailyBudget: number;
  wanted: number;
  /**
   * The ledger's answer to a reservation already asked for this
   * call (an early reservation); else the first try reserves.
   */
  first?: ReserveResult | null;
  /** Ends the wait at once when it fires. */
  signal?: AbortSignal;
  /** The time each try is charged to (its UTC day). */
  clock: () => Date;
}

export interface BudgetAdmissionOptions {
  ledger: BudgetLedger;
  /**
   * Longest a call waits for room held by calls in flight; 0 refuses at
   * once. Default 10 s (the downstream timeout's default): the wait is
   * bounded like the forward that follows it.
   */
  maxWaitMs?: number;
  /**
   * Between two tries while the room stays held: doubling from `first` up to `longest`, jittered. Default 10 → 100 ms.
   */
  pollDelayMs?: { first: number; longest: number };
  /** Calls of one agent waiting on this instance, at most; the next one is refused as held at once. Default 1 000. */
  maxWaitersPerAgent?: number;
  /** Where a grant that came after its caller left is given back; without it, the ledger directly. */
  settlements?: Settlements;
}

export const DEFAULT_BUDGET_WAIT_MS = 10_000;
const DEFAULT_POLL_DELAY_MS = { first: 10, longest: 100 };
const DEFAULT_MAX_WAITERS_PER_AGENT = 1_000;

interface Waiter {
  request: AdmitRequest;
  startedAt: number;
  finish: (admission: BudgetAdmissionOutcome) => void;
  fail: (error: unknown) => void;
  done: boolean;
}

/** One agent's waiting calls on this instance, first come first served, and the loop that tries for them. */
interface Line {
  waiters: Waiter[];
  /** Whether its loop runs (it stops once the line is empty). */
  serving: boolean;
  /** Set by a local settle or release (or a waiter leaving): the next pause is skipped or cut short. */
  nudged: boolean;
  wake: (() => void) | null;
}

/**
 * The budget step's admission: a call whose budget is fully held by calls
 * in flight waits for them to settle (their answers are usually far smaller
 * than the caps they reserved) instead of being refused while tokens remain.
 * Only a call that can never fit today is refused at once.
 *
 * Per agent, the waiting calls on this instance form one line, and only its
 * head asks the ledger: it tries again as soon as this instance settles or
 * releases one of the agent's reservations (`BudgetLedger.onFreed`), and
 * otherwise polls with a short jittered backoff to see other instances'
 * settlements. So a waiting agent costs the store one reservation attempt
 * per pause (at most about ten a second per instance), whatever the number
 * of calls waiting, and calls are admitted in the order they arrived. A
 * wait never grants anything the ledger would not: the budget is never
 * overshot, whoever waits.
 */
export class BudgetAdmission {
  readonly #ledger: BudgetLedger;
  readonly #settlements: Settlements | undefined;
  readonly #maxWaitMs: number;
  readonly #pollDelayMs: { first: number; longest: number };
  readonly #maxWaiters: number;
  readonly #lines = new Map<string, Line>();

  constructor(options: BudgetAdmissionOptions) {
    this.#ledger = options.ledger;
    this.#settlements = options.settlements;
    this.#maxWaitMs = options.maxWaitMs ?? DEFAULT_BUDGET_WAIT_MS;
    this.#pollDelayMs = options.pollDelayMs ?? DEFAULT_POLL_DELAY_MS;
    this.#maxWaiters = options.maxWaitersPerAgent ?? DEFAULT_MAX_WAITERS_PER_AGENT;
    const { first, longest } = this.#pollDelayMs;
    if (!(this.#maxWaitMs >= 0 && Number.isFinite(this.#maxWaitMs)))
      throw new RangeError(`maxWaitMs must be 0 or more, got ${this.#maxWaitMs}`);
    if (!(first > 0 && longest >= first && Number.isFinite(longest)))
      throw new RangeError(`pollDelayMs must be positive with longest ≥ first, got ${first} → ${longest}`);
    if (!(Number.isSafeInteger(this.#maxWaiters) && this.#maxWaiters >= 0))
      throw new RangeError(`maxWaitersPerAgent must be a whole number, got ${this.#maxWaiters}`);
  }

  /** The longest a call waits, for messages. */
  get maxWaitMs(): number {
    return this.#maxWaitMs;
  }

  /** Calls waiting now, all agents together. */
  get waiting(): number {
    let count = 0;
    for (const line of this.#lines.values()) count += line.waiters.length;
    return count;
  }

  /**
   * A reservation for the call, waiting while the room it needs is held by
   * calls in flight. A store failure is thrown, as from the ledger.
   */
  async admit(request: AdmitRequest): Promise<BudgetAdmissionOutcome> {
    // While others of the agent wait here, a new call queues behind them rather than taking what frees first.
    const first = request.first ?? (this.#lines.has(request.agentId) ? null : await this.#reserve(request));
    if (first?.ok) return { ok: true, reservation: first.reservation };
    if (first?.reason === 'exhausted') return { ok: false, reason: 'exhausted' };
    return this.#wait(request);
  }

  #reserve({ agentId, dailyBudget, wanted, clock }: AdmitRequest): Promise<ReserveResult> {
    return this.#ledger.reserve(agentId, dailyBudget, wanted, clock(), { minimum: 1 });
  }

  #wait(request: AdmitRequest): Promise<BudgetAdmissionOutcome> {
    if (request.signal?.aborted) return Promise.resolve({ ok: false, reason: 'cancelled' });
    const line = this.#lines.get(request.agentId) ?? this.#openLine(request.agentId);
    if (this.#maxWaitMs === 0 || line.waiters.length >= this.#maxWaiters) {
      if (line.waiters.length === 0) this.#lines.delete(request.agentId);
      return Promise.resolve({ ok: false, reason: 'held', waitedMs: 0 });
    }
    return new Promise<BudgetAdmissionOutcome>((resolve, reject) => {
      const startedAt = performance.now();
      const leave = (end: () => void) => {
        if (waiter.done) return;
        waiter.done = true;
        clearTimeout(timer);
        request.signal?.removeEventListener('abort', onAbort);
        const index = line.waiters.indexOf(waiter);
        if (index >= 0) line.waiters.splice(index, 1);
        // The head may have left: let the next one try now.
        this.#nudge(line);
        end();
      };
      const waiter: Waiter = {
        request,
        startedAt,
        done: false,
        finish: (admission) => leave(() => resolve(admission)),
        fail: (error) => leave(() => reject(error)),
      };
      const onAbort = () => waiter.finish({ ok: false, reason: 'cancelled' });
      const timer = setTimeout(
        () => waiter.finish({ ok: false, reason: 'held', waitedMs: performance.now() - startedAt }),
        this.#maxWaitMs,
      );
      timer.unref();
      request.signal?.addEventListener('abort', onAbort, { once: true });
      line.waiters.push(waiter);
      if (!line.serving) void this.#serve(request.agentId, line);
    });
  }

  #openLine(agentId: string): Line {
    const line: Line = { waiters: [], serving: false, nudged: false, wake: null };
    this.#lines.set(agentId, line);
    return line;
  }

  #nudge(line: Line): void {
    line.nudged = true;
    line.wake?.();
  }

  /** Tries for the head of the line until the line is empty; one loop per agent with calls waiting. */
  async #serve(agentId: string, line: Line): Promise<void> {
    line.serving = true;
    const stopListening = this.#ledger.onFreed?.(agentId, () => this.#nudge(line));
    let pauses = 0;
    try {
      while (line.waiters.length > 0) {
        const head = line.waiters[0]!;
        line.nudged = false;
        let result: ReserveResult;
        try {
          result = await this.#reserve(head.request);
        } catch (error) {
          head.fail(error);
          await this.#pause(line, pauses++);
          continue;
        }
        if (head.done) {
          // Its caller left while the ledger answered: the grant goes back, the next call tries.
          if (result.ok) this.#giveBack(result.reservation);
        } else if (result.ok) {
          head.finish({ ok: true, reservation: result.reservation });
          pauses = 0;
        } else if (result.reason === 'exhausted') {
          head.finish({ ok: false, reason: 'exhausted' });
        } else {
          await this.#pause(line, pauses++);
        }
      }
    } finally {
      stopListening?.();
      line.serving = false;
      if (this.#lines.get(agentId) === line) this.#lines.delete(agentId);
    }
  }

  /** Until the next poll (jittered, so instances do not poll in step), or sooner when nudged. */
  #pause(line: Line, pauses: number): Promise<void> {
    if (line.nudged) return Promise.resolve();
    const { first, longest } = this.#pollDelayMs;
    const ceiling = Math.min(first * 2 ** pauses, longest);
    const delay = ceiling / 2 + (Math.random() * ceiling) / 2;
    return new Promise((resolve) => {
      const timer = setTimeout(done, delay);
      function done() {
        clearTimeout(timer);
        line.wake = null;
        resolve();
      }
      line.wake = done;
    });
  }

  #giveBack(reservation: Reservation): void {
    if (this.#settlements) this.#settlements.release(reservation);
    else void this.#ledger.release(reservation).catch(() => undefined);
  }
}

const shared = new WeakMap<BudgetLedger, BudgetAdmission>();

/** One admission per ledger with the defaults, for pipelines that were given none. */
export function defaultAdmission(ledger: BudgetLedger): BudgetAdmission {
  let admission = shared.get(ledger);
  if (!admission) shared.set(ledger, (admission = new BudgetAdmission({ ledger })));
  return admission;
}
