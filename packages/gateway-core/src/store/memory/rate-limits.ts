import type { RateLimit, RateLimiter, RateLimitTake } from '../ports.js';
import { checkRateLimit, gcraGiveBack, gcraTake } from '../rate-limit-rules.js';

/** Takes between two sweeps of agents whose bucket is full again. */
const SWEEP_EVERY = 1_000;

/**
 * Call rates in this process, on the caller's clock. An agent's TAT is
 * dropped once it has passed (its bucket is full again): as it is met, and
 * by a sweep every thousand takes, so agents gone idle are not kept.
 */
export class MemoryRateLimiter implements RateLimiter {
  readonly #tats = new Map<string, number>();
  #untilSweep = SWEEP_EVERY;

  async take(agentId: string, limit: RateLimit, now: Date): Promise<RateLimitTake> {
    checkRateLimit(limit);
    const at = now.getTime();
    if (--this.#untilSweep <= 0) this.#sweep(at);
    const step = gcraTake(this.#tats.get(agentId), limit, at);
    if (!step.ok) return step;
    this.#tats.set(agentId, step.tat);
    return { ok: true };
  }

  async giveBack(agentId: string, limit: RateLimit, now: Date): Promise<void> {
    checkRateLimit(limit);
    const tat = gcraGiveBack(this.#tats.get(agentId), limit, now.getTime());
    if (tat === null) this.#tats.delete(agentId);
    else this.#tats.set(agentId, tat);
  }

  /** Agents with something kept, swept or not yet. */
  get size(): number {
    return this.#tats.size;
  }

  #sweep(now: number): void {
    this.#untilSweep = SWEEP_EVERY;
    for (const [agentId, tat] of this.#tats) if (tat <= now) this.#tats.delete(agentId);
  }
}
