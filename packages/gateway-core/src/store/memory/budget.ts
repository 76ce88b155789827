import { randomUUID } from 'node:crypto';
import { utcDay } from '../../time.js';
import { assertTokenCount, checkReserveArguments, grantFor, refusalFor } from '../budget-rules.js';
import { FreedListeners } from '../freed-listeners.js';
import type { BudgetLedger, BudgetUsage, Reservation, ReserveOptions, ReserveResult } from '../ports.js';

interface Held {
  granted: number;
  expiresAt: number;
}

interface DayLedger {
  used: number;
  held: Map<string, Held>;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Atomic by construction: no method awaits between reading and writing, so
 * on one event loop two reservations can never interleave.
 */
export class MemoryBudgetLedger implements BudgetLedger {
  /** agentId -> UTC day -> ledger. Days older than yesterday are dropped. */
  readonly #agents = new Map<string, Map<string, DayLedger>>();
  readonly #reservationTtlMs: number;
  readonly #freed = new FreedListeners();

  constructor(reservationTtlMs: number) {
    this.#reservationTtlMs = reservationTtlMs;
  }

  async reserve(
    agentId: string,
    dailyBudget: number,
    wanted: number,
    now: Date,
    options: ReserveOptions = {},
  ): Promise<ReserveResult> {
    const args = checkReserveArguments(dailyBudget, wanted, options.minimum);
    const day = utcDay(now);
    const ledger = this.#today(agentId, now);
    const available = args.dailyBudget - ledger.used - heldTokens(ledger, now.getTime());
    const granted = grantFor(available, args.wanted, args.minimum);
    if (granted === 0)
      return {
        ok: false,
        remaining: Math.max(available, 0),
        reason: refusalFor(args.dailyBudget, ledger.used, args.minimum),
      };

    const id = randomUUID();
    ledger.held.set(id, { granted, expiresAt: now.getTime() + this.#reservationTtlMs });
    return { ok: true, reservation: { agentId, day, id, granted }, remaining: available - granted };
  }

  async settle(reservation: Reservation, used: number): Promise<boolean> {
    assertTokenCount('used', used);
    const ledger = this.#agents.get(reservation.agentId)?.get(reservation.day);
    const held = ledger?.held.get(reservation.id);
    if (!ledger || !held) return false;
    ledger.held.delete(reservation.id);
    ledger.used += Math.min(used, held.granted);
    this.#freed.emit(reservation.agentId);
    return true;
  }

  async release(reservation: Reservation): Promise<boolean> {
    const released = this.#agents.get(reservation.agentId)?.get(reservation.day)?.held.delete(reservation.id) ?? false;
    if (released) this.#freed.emit(reservation.agentId);
    return released;
  }

  async usage(agentId: string, now: Date): Promise<BudgetUsage> {
    const ledger = this.#today(agentId, now);
    return { day: utcDay(now), used: ledger.used, reserved: heldTokens(ledger, now.getTime()) };
  }

  async reset(agentId: string, now: Date): Promise<void> {
    this.#today(agentId, now).used = 0;
    this.#freed.emit(agentId);
  }

  onFreed(agentId: string, listener: () => void): () => void {
    return this.#freed.on(agentId, listener);
  }

  #today(agentId: string, now: Date): DayLedger {
    let days = this.#agents.get(agentId);
    if (!days) this.#agents.set(agentId, (days = new Map()));
    // Yesterday stays so calls started before midnight can still settle.
    const oldestKept = utcDay(new Date(now.getTime() - DAY_MS));
    for (const day of days.keys()) if (day < oldestKept) days.delete(day);

    const day = utcDay(now);
    let ledger = days.get(day);
    if (!ledger) days.set(day, (ledger = { used: 0, held: new Map() }));
    return ledger;
  }
}

/** Tokens held by live reservations; lapsed ones are dropped on the way. */
function heldTokens(ledger: DayLedger, nowMs: number): number {
  let total = 0;
  for (const [id, held] of ledger.held) {
    if (held.expiresAt <= nowMs) ledger.held.delete(id);
    else total += held.granted;
  }
  return total;
}
