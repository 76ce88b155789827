import { performance } from 'node:perf_hooks';
import { TimedAbort } from '../abort/timed-abort.js';

/**
 * One time budget for a whole call, retries and backoff included. Its signal
 * fires when the budget runs out or the caller cancels; `expired` tells the
 * two apart, because one is the downstream's fault and the other is not.
 */
export class Deadline {
  readonly budgetMs: number;
  readonly #abort: TimedAbort;
  readonly #endsAt: number;

  constructor(budgetMs: number, callerSignal?: AbortSignal) {
    this.budgetMs = budgetMs;
    this.#endsAt = performance.now() + budgetMs;
    this.#abort = new TimedAbort(budgetMs, callerSignal);
  }

  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  /** The call is over: the budget can no longer run out. */
  end(): void {
    this.#abort.dispose();
  }

  get expired(): boolean {
    return this.#abort.timedOut;
  }

  remainingMs(): number {
    return Math.max(0, this.#endsAt - performance.now());
  }
}
