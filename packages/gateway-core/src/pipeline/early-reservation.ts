import type { AgentRecord, BudgetLedger, Reservation, ReserveResult } from '../store/ports.js';
import { judgedLater } from '../util/judged-later.js';
import type { Settlements } from './settlement-queue.js';

/**
 * A budget reservation asked for before the call's checks have run, so its
 * store command travels in the same round trip as the authentication reads.
 * It is sized on the agent's budget as last seen; `take` hands it to the
 * budget step only if that is still the agent's budget and the tool's cap,
 * and `abandon` gives it back when the call ends before that step.
 */
export class EarlyReservation {
  readonly #pending: Promise<ReserveResult>;
  readonly #giveBack: GiveBack;
  #claimed = false;

  constructor(
    readonly agentId: string,
    readonly dailyBudget: number,
    readonly wanted: number,
    pending: Promise<ReserveResult>,
    giveBack: GiveBack,
  ) {
    this.#pending = judgedLater(pending);
    this.#giveBack = giveBack;
  }

  /**
   * The ledger's answer, for the budget step; null when it was sized on a
   * budget or cap that no longer holds (it is then given back, and the
   * caller reserves afresh). A store failure is rethrown. A refusal keeps
   * its reason: a budget found `held` by calls in flight is waited for by
   * the budget step exactly as if it had reserved late.
   */
  async take(agent: AgentRecord, wanted: number): Promise<ReserveResult | null> {
    this.#claimed = true;
    const reserved = await this.#pending;
    if (agent.agentId === this.agentId && agent.dailyTokenBudget === this.dailyBudget && wanted === this.wanted)
      return reserved;
    this.#giveBack(this.agentId, Promise.resolve(grantOf(reserved)));
    return null;
  }

  /** The call ended before its budget step: give the tokens back. A no-op once taken. */
  abandon(): void {
    if (this.#claimed) return;
    this.#claimed = true;
    this.#giveBack(
      this.agentId,
      this.#pending.then(grantOf, () => null),
    );
  }
}

/** Frees a reservation once the ledger has answered, if it granted one. */
type GiveBack = (agentId: string, pending: Promise<Reservation | null>) => void;

function grantOf(reserved: ReserveResult): Reservation | null {
  return reserved.ok ? reserved.reservation : null;
}

export interface EarlyReservationsOptions {
  ledger: BudgetLedger;
  /** Where releases go (after the reply); without it the ledger is called directly. */
  settlements?: Settlements;
  clock?: () => Date;
  /** Agents whose budget is remembered, at most. Default 10 000. */
  maxAgents?: number;
}

/**
 * Starts reservations early for agents seen before. An agent's daily budget
 * is only known once its record is read; remembering it from the previous
 * call lets the next call's reservation leave together with that read.
 * The first call of an agent, or one whose budget just changed, reserves
 * after authentication as usual.
 */
export class EarlyReservations {
  readonly #budgets = new Map<string, number>();
  readonly #options: EarlyReservationsOptions;

  constructor(options: EarlyReservationsOptions) {
    this.#options = options;
  }

  /** Remembers the agent's current budget for its next call. */
  remember(agent: AgentRecord): void {
    if (this.#budgets.get(agent.agentId) === agent.dailyTokenBudget) return;
    this.#budgets.delete(agent.agentId);
    this.#budgets.set(agent.agentId, agent.dailyTokenBudget);
    // Insertion order: the first key is the agent least recently changed or added.
    if (this.#budgets.size > (this.#options.maxAgents ?? 10_000))
      this.#budgets.delete(this.#budgets.keys().next().value!);
  }

  /** Reserves `wanted` tokens now if the agent's budget is known; null otherwise. */
  start(agentId: string, wanted: number): EarlyReservation | null {
    const dailyBudget = this.#budgets.get(agentId);
    if (dailyBudget === undefined) return null;
    const now = this.#options.clock?.() ?? new Date();
    const pending = this.#options.ledger.reserve(agentId, dailyBudget, wanted, now, { minimum: 1 });
    return new EarlyReservation(agentId, dailyBudget, wanted, pending, (id, grant) => this.#giveBack(id, grant));
  }

  #giveBack(agentId: string, grant: Promise<Reservation | null>): void {
    const { settlements, ledger } = this.#options;
    if (settlements) {
      settlements.releaseWhenGranted(agentId, grant);
      return;
    }
    void grant.then((reservation) => reservation && ledger.release(reservation)).catch(() => undefined);
  }
}
