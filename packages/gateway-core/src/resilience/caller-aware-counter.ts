import type { CircuitState, IBreaker } from 'cockatiel';

/** Callers remembered at most: past it the one heard from longest ago is forgotten. */
const MAX_CALLERS = 1024;

/**
 * The shared circuit's failure counter, told who failed. A downstream fault
 * of one caller is held back, not counted, while another caller's last call
 * to the downstream succeeded within `windowMs`: the downstream is working,
 * and what fails is that caller's use of it (a tool, its arguments), which
 * its own breaker judges (see CallerBreakers). So one agent hammering a
 * failing tool cannot isolate the downstream from everyone else.
 *
 * When no other caller shows the downstream working (every caller fails, or
 * there is only one), every fault counts as before. Failures held back are
 * replayed into the count by the next fault that counts, unless a success
 * came between them, so when every caller fails the circuit still opens at
 * the configured threshold, not later.
 */
export class CallerAwareCounter implements IBreaker {
  readonly #inner: IBreaker;
  readonly #windowMs: number;
  /** Each caller's last outcome, oldest first. */
  readonly #lastOutcome = new Map<string, { ok: boolean; at: number }>();
  /** Faults held back since the last success. */
  #held = 0;
  /** cockatiel reports a fault it was told not to count as a success: that many success() calls are not successes. */
  #notSuccesses = 0;

  constructor(inner: IBreaker, windowMs: number) {
    this.#inner = inner;
    this.#windowMs = windowMs;
  }

  get state(): unknown {
    return this.#inner.state;
  }

  set state(value: unknown) {
    this.#inner.state = value;
  }

  succeeded(caller: string, now = Date.now()): void {
    this.#remember(caller, true, now);
  }

  /** A downstream fault of `caller`: true when it counts toward the shared circuit, false when it is held back. */
  failed(caller: string, now = Date.now()): boolean {
    const othersWorking = this.#anotherSucceeding(caller, now);
    this.#remember(caller, false, now);
    if (!othersWorking) return true;
    this.#held++;
    this.#notSuccesses++;
    return false;
  }

  success(state: CircuitState): void {
    if (this.#notSuccesses > 0) {
      this.#notSuccesses--;
      return;
    }
    this.#held = 0;
    this.#inner.success(state);
  }

  failure(state: CircuitState): boolean {
    let open = this.#inner.failure(state);
    for (; !open && this.#held > 0; this.#held--) open = this.#inner.failure(state);
    this.#held = 0;
    return open;
  }

  #anotherSucceeding(caller: string, now: number): boolean {
    for (const [other, { ok, at }] of this.#lastOutcome)
      if (other !== caller && ok && now - at < this.#windowMs) return true;
    return false;
  }

  #remember(caller: string, ok: boolean, now: number): void {
    // Deleted first so the map stays in order of last outcome: the oldest is the one forgotten.
    this.#lastOutcome.delete(caller);
    this.#lastOutcome.set(caller, { ok, at: now });
    if (this.#lastOutcome.size > MAX_CALLERS) this.#lastOutcome.delete(this.#lastOutcome.keys().next().value!);
  }
}
