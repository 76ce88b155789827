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
  readonly #caller: AbortSignal | undefined;
  readonly #timer: NodeJS.Timeout;
  readonly #onCallerAbort = () => this.#controller.abort(this.#caller?.reason);
  #timedOut = false;

  constructor(timeoutMs: number, callerSignal?: AbortSignal) {
    this.#caller = callerSignal;
    this.#timer = setTimeout(() => {
      this.#timedOut = true;
      this.#controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
    }, timeoutMs).unref();
    if (callerSignal?.aborted) this.#onCallerAbort();
    else callerSignal?.addEventListener('abort', this.#onCallerAbort, { once: true });
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** True when the time ran out (as opposed to the caller cancelling). */
  get timedOut(): boolean {
    return this.#timedOut;
  }

  /** The call is over: the timer is cancelled and the caller's signal let go. */
  dispose(): void {
    clearTimeout(this.#timer);
    this.#caller?.removeEventListener('abort', this.#onCallerAbort);
  }
}
