import { performance } from 'node:perf_hooks';

/**
 * One time budget for a whole call, retries and backoff included. Its signal
 * fires when the budget runs out or the caller cancels; `expired` tells the
 * two apart, because one is the downstream's fault and the other is not.
 */
export class Deadline {
  readonly signal: AbortSignal;
  readonly budgetMs: number;
  readonly #timeout: AbortSignal;
  readonly #endsAt: number;

  constructor(budgetMs: number, callerSignal?: AbortSignal) {
    this.budgetMs = budgetMs;
    this.#endsAt = performance.now() + budgetMs;
    this.#timeout = AbortSignal.timeout(budgetMs);
    this.signal = callerSignal === undefined ? this.#timeout : AbortSignal.any([callerSignal, this.#timeout]);
  }

  get expired(): boolean {
    return this.#timeout.aborted;
  }

  remainingMs(): number {
    return Math.max(0, this.#endsAt - performance.now());
  }
}
