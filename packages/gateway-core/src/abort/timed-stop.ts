/**
 * What stops one downstream request from outside: its time running out or
 * the caller's signal firing, whichever comes first. It calls the one stop
 * function the request registered (the pool destroys the request), and
 * `dispose` detaches it from both once the request is over.
 *
 * Not an AbortSignal (TimedAbort adds one on top of this): a signal handed
 * to node:http costs an EventTarget listener on it plus end-of-stream
 * listeners on the request (addAbortSignal), on every call; here the
 * request's stop is a plain function call. The caller's signal is the one
 * EventTarget listened to.
 */
export class TimedStop {
  readonly #caller: AbortSignal | undefined;
  readonly #timer: NodeJS.Timeout;
  readonly #onCallerAbort = () => this.#fire(this.#caller?.reason);
  #stop: ((reason: unknown) => void) | undefined;
  #stopped = false;
  #reason: unknown;
  #timedOut = false;

  constructor(timeoutMs: number, callerSignal?: AbortSignal) {
    this.#caller = callerSignal;
    this.#timer = setTimeout(() => {
      this.#timedOut = true;
      this.#fire(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
    }, timeoutMs).unref();
    if (callerSignal?.aborted) this.#fire(callerSignal.reason);
    else callerSignal?.addEventListener('abort', this.#onCallerAbort, { once: true });
  }

  /** True once the time ran out or the caller cancelled; `reason` says why. */
  get stopped(): boolean {
    return this.#stopped;
  }

  get reason(): unknown {
    return this.#reason;
  }

  /** True when the time ran out (as opposed to the caller cancelling). */
  get timedOut(): boolean {
    return this.#timedOut;
  }

  /** Registers what stops the request; a request started after the stop is stopped at once. */
  onStop(stop: (reason: unknown) => void): void {
    if (this.#stopped) stop(this.#reason);
    else this.#stop = stop;
  }

  /** The request is over: the timer is cancelled and the caller's signal let go. */
  dispose(): void {
    clearTimeout(this.#timer);
    this.#stop = undefined;
    this.#caller?.removeEventListener('abort', this.#onCallerAbort);
  }

  #fire(reason: unknown): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#reason = reason;
    this.#stop?.(reason);
  }
}
