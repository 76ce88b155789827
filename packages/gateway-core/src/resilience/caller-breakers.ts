import type { BreakerOptions } from './options.js';
import { DownstreamBreaker } from './breaker.js';

/** Breakers kept at most; past it the closed ones are dropped (a closed breaker with no failures is a fresh one). */
const MAX_BREAKERS = 1024;

/**
 * One breaker per caller (agent) in front of a downstream, with the
 * downstream's settings: a caller whose calls keep failing while the
 * downstream works for others is held back on its own, its calls refused
 * at once for the break, without touching anyone else's.
 */
export class CallerBreakers {
  readonly #options: Required<BreakerOptions>;
  readonly #downstream: string | undefined;
  readonly #breakers = new Map<string, DownstreamBreaker>();

  constructor(options: Required<BreakerOptions>, downstream?: string) {
    this.#options = options;
    this.#downstream = downstream;
  }

  of(caller: string): DownstreamBreaker {
    let breaker = this.#breakers.get(caller);
    if (breaker === undefined) {
      if (this.#breakers.size >= MAX_BREAKERS) this.#dropClosed();
      breaker = DownstreamBreaker.forCaller(this.#options, this.#downstream);
      this.#breakers.set(caller, breaker);
    }
    return breaker;
  }

  #dropClosed(): void {
    for (const [caller, breaker] of this.#breakers) if (breaker.state === 'closed') this.#breakers.delete(caller);
    // All open at once (a flood of failing agents): the oldest go, their break forgotten.
    for (const caller of this.#breakers.keys()) {
      if (this.#breakers.size < MAX_BREAKERS) break;
      this.#breakers.delete(caller);
    }
  }
}
