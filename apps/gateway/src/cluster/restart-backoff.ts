/**
 * How long the primary waits before replacing a worker that exited. A worker
 * that ran for a while and crashed is replaced almost at once; workers that
 * keep dying young (Redis refusing connections at start-up, a poisoned
 * request that kills every worker) are replaced ever more slowly, so a crash
 * loop never spins the host's CPU on start-ups.
 */
export interface RestartBackoffOptions {
  /** The first wait, doubled for every further young death in a row. */
  baseMs: number;
  maxMs: number;
  /** A worker that lived this long was healthy: the next wait starts from the base again. */
  healthyAfterMs: number;
}

export const DEFAULT_RESTART_BACKOFF: RestartBackoffOptions = { baseMs: 100, maxMs: 30_000, healthyAfterMs: 30_000 };

export class RestartBackoff {
  #youngDeaths = 0;

  constructor(private readonly options: RestartBackoffOptions = DEFAULT_RESTART_BACKOFF) {}

  /** The wait before replacing a worker that lived `livedMs`. */
  next(livedMs: number): number {
    this.#youngDeaths = livedMs >= this.options.healthyAfterMs ? 0 : this.#youngDeaths + 1;
    // 2 ** 30 already dwarfs any sane maximum; the exponent is bounded so the product stays finite.
    return Math.min(this.options.maxMs, this.options.baseMs * 2 ** Math.min(this.#youngDeaths, 30));
  }
}
