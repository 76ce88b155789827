import { TimedStop } from './timed-stop.js';

/**
 * An abort signal for one call: it fires when the call's time runs out or
 * when the caller's own signal fires, whichever comes first, and `dispose`
 * detaches it from both once the call is over.
 *
 * Not `AbortSignal.timeout` (its timer cannot be cancelled: it fires after
 * every call, long finished or not) and not `AbortSignal.any`: the signals
 * `any` creates are tracked through WeakRefs, which V8's young-generation
 * collector treats as strong, so every call's signals and what their
 * listeners hold were promoted to the old generation (about 10 MB/s under
 * load) and stayed in the process's memory until a full collection.
 */
export class TimedAbort {
  readonly #controller = new AbortController();
  // The timer and the caller's signal, whichever fires first, abort the controller.
  readonly #stop: TimedStop;

  constructor(timeoutMs: number, callerSignal?: AbortSignal) {
    this.#stop = new TimedStop(timeoutMs, callerSignal);
    this.#stop.onStop((reason) => this.#controller.abort(reason));
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** True when the time ran out (as opposed to the caller cancelling). */
  get timedOut(): boolean {
    return this.#stop.timedOut;
  }

  /** The call is over: the timer is cancelled and the caller's signal let go. */
  dispose(): void {
    this.#stop.dispose();
  }
}
