import type { AgentRecord, RateLimit, RateLimiter, RateLimitTake } from '../store/ports.js';
import { judgedLater } from '../util/judged-later.js';

/**
 * A rate-limit take sent before the call's checks, so its store command
 * travels in the same round trip as the authentication reads and the early
 * budget reservation. It counts the call against the agent's limit as last
 * seen; the limits step judges it (`take`) only if that is still the
 * agent's limit, and `abandon` uncounts it when the call ends before that
 * step (refused by an earlier check), so only calls that reach the limits
 * step are counted, as the pipeline's order says.
 */
export class EarlyRateTake {
  readonly #pending: Promise<RateLimitTake>;
  readonly #giveBack: () => void;
  #claimed = false;

  constructor(
    readonly agentId: string,
    readonly limit: RateLimit,
    pending: Promise<RateLimitTake>,
    giveBack: () => void,
  ) {
    this.#pending = judgedLater(pending);
    this.#giveBack = giveBack;
  }

  /**
   * The limiter's answer, for the limits step; null when it was taken on a
   * limit that is no longer the agent's (it is given back, and the step
   * takes afresh on the current one). A store failure is rethrown.
   */
  async take(agent: AgentRecord): Promise<RateLimitTake | null> {
    this.#claimed = true;
    const taken = await this.#pending;
    if (agent.agentId === this.agentId && sameLimit(agent.rateLimit, this.limit)) return taken;
    if (taken.ok) this.#giveBack();
    return null;
  }

  /** The call ended before its limits step: uncount it. A no-op once taken. */
  abandon(): void {
    if (this.#claimed) return;
    this.#claimed = true;
    void this.#pending.then(
      (taken) => taken.ok && this.#giveBack(),
      () => undefined,
    );
  }
}

export interface EarlyRateLimitsOptions {
  limiter: RateLimiter;
  clock?: () => Date;
  /** Agents whose limit is remembered, at most. Default 10 000. */
  maxAgents?: number;
}

/**
 * Starts rate-limit takes early for agents seen before, the way
 * `EarlyReservations` starts budget reservations: an agent's limit is only
 * known once its record is read, so the one seen on its previous call lets
 * the next call's take leave together with that read. The first call of an
 * agent on this instance, or the first after its limit changed, takes at
 * the limits step instead (one round trip more).
 */
export class EarlyRateLimits {
  readonly #limits = new Map<string, RateLimit | null>();
  readonly #options: EarlyRateLimitsOptions;

  constructor(options: EarlyRateLimitsOptions) {
    this.#options = options;
  }

  /** Remembers the agent's current limit (or that it has none) for its next call. */
  remember(agent: AgentRecord): void {
    const known = this.#limits.get(agent.agentId);
    if (known !== undefined && sameLimit(known, agent.rateLimit)) return;
    this.#limits.delete(agent.agentId);
    this.#limits.set(agent.agentId, agent.rateLimit);
    // Insertion order: the first key is the agent least recently changed or added.
    if (this.#limits.size > (this.#options.maxAgents ?? 10_000)) this.#limits.delete(this.#limits.keys().next().value!);
  }

  /** Counts a call now if the agent is known to have a limit; null otherwise. */
  start(agentId: string): EarlyRateTake | null {
    const limit = this.#limits.get(agentId);
    if (!limit) return null;
    const { limiter } = this.#options;
    const now = () => this.#options.clock?.() ?? new Date();
    const giveBack = () => void limiter.giveBack(agentId, limit, now()).catch(() => undefined);
    return new EarlyRateTake(agentId, limit, limiter.take(agentId, limit, now()), giveBack);
  }
}

export function sameLimit(a: RateLimit | null, b: RateLimit | null): boolean {
  return a === b || (a !== null && b !== null && a.callsPerMinute === b.callsPerMinute && a.burst === b.burst);
}
