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
  readonly #timer: NodeJS.Timeout;
  readonly #endsAt: number;

  constructor(budgetMs: number, callerSignal?: AbortSignal) {
    this.budgetMs = budgetMs;
    this.#endsAt = performance.now() + budgetMs;
    // Not AbortSignal.timeout: its timer cannot be cancelled, so it fires after every
    // call, long finished or not, and builds a TimeoutError each time. This one is `end`ed.
    const controller = new AbortController();
    this.#timer = setTimeout(() => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), budgetMs).unref();
    this.#timeout = controller.signal;
    this.signal = callerSignal === undefined ? this.#timeout : AbortSignal.any([callerSignal, this.#timeout]);
  }

  /** The call is over: the budget can no longer run out. */
  end(): void {
    clearTimeout(this.#timer);
  }

  get expired(): boolean {
    return this.#timeout.aborted;
  }

  remainingMs(): number {
    return Math.max(0, this.#endsAt - performance.now());
  }
}
