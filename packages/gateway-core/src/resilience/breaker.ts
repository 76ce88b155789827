import {
  CircuitState,
  ConsecutiveBreaker,
  SamplingBreaker,
  circuitBreaker,
  handleWhen,
  isBrokenCircuitError,
  type CircuitBreakerPolicy,
  type FailureReason,
  type IBreaker,
} from 'cockatiel';
import { CircuitOpenError, DownstreamCallError, type DownstreamFailure } from '../errors.js';
import { CallerAwareCounter } from './caller-aware-counter.js';
import { isDownstreamAnswer, isDownstreamFault } from './failures.js';
import type { BreakerOptions, BreakerState, BreakerStateChange } from './options.js';

/**
 * The circuit breaker in front of the downstream, built on cockatiel's
 * policy with two corrections so it behaves as the gateway promises:
 *
 * - While half-open, cockatiel makes every other caller wait for the probe's
 *   verdict; here they fail fast with CircuitOpenError instead, so exactly
 *   one call reaches a downstream that may still be down.
 * - cockatiel treats any error it does not count as a success, so a probe
 *   refused before it was sent would close the circuit on no evidence; here a
 *   probe closes the circuit only when the downstream answered, and otherwise
 *   counts as a failure so the circuit stays open for another break. (The
 *   forwarder keeps such calls from becoming the probe at all, and runs the
 *   probe to its end whatever its caller does: see resilient-forwarder.ts.)
 *
 * The downstream's shared breaker is told who each call is for and counts a
 * caller's faults only when no other caller shows the downstream working
 * (CallerAwareCounter); each caller also has a breaker of its own
 * (`forCaller`, see CallerBreakers) that holds it back alone.
 */
export class DownstreamBreaker {
  readonly #policy: CircuitBreakerPolicy;
  /** Probes that ended without an answer, so the failure filter counts them (errors are unique objects). */
  readonly #inconclusiveProbes = new WeakSet<object>();
  #state: BreakerState = 'closed';
  readonly #breakMs: number;
  /** When the circuit last opened, so a refusal can say when to try again. */
  #openedAt = 0;

  /** What a refusal says, naming the downstream (`The downstream API "orders"`) when the gateway fronts several. */
  readonly #refusalMessage: string;
  /** The shared breaker's counter (null for a caller's own): who failed decides what counts. */
  readonly #callers: CallerAwareCounter | null;
  /** The caller of each failed call, for the failure filter (errors are unique objects). */
  readonly #callerOf = new WeakMap<object, string>();

  constructor(
    options: Required<BreakerOptions>,
    onStateChange?: (change: BreakerStateChange) => void,
    downstream?: string,
    ownCaller = false,
  ) {
    this.#breakMs = options.breakMs;
    const subject =
      downstream === undefined ? 'the downstream API' : `the downstream API ${JSON.stringify(downstream)}`;
    this.#refusalMessage = ownCaller
      ? `Your calls to ${subject} failed repeatedly while it answers others; yours are held back, try again shortly.`
      : `${subject[0]!.toUpperCase()}${subject.slice(1)} is isolated after repeated failures; try again shortly.`;
    this.#callers = ownCaller ? null : new CallerAwareCounter(counterFor(options), options.windowMs);
    this.#policy = circuitBreaker(
      handleWhen(
        (error) => (isDownstreamFault(error) && this.#counts(error)) || this.#inconclusiveProbes.has(error as object),
      ),
      { halfOpenAfter: options.breakMs, breaker: this.#callers ?? counterFor(options) },
    );
    this.#policy.onStateChange((next) => {
      const change: BreakerStateChange = { from: this.#state, to: publicState(next) };
      this.#state = change.to;
      if (change.to === 'open') {
        this.#openedAt = Date.now();
        change.failure = describeFailure(this.#policy.lastFailure);
      }
      notify(onStateChange, change);
    });
  }

  /** A caller's own breaker: the downstream's settings, a plain count of that caller's faults. */
  static forCaller(options: Required<BreakerOptions>, downstream?: string): DownstreamBreaker {
    return new DownstreamBreaker(options, undefined, downstream, true);
  }

  /**
   * `open` until the next call after the break becomes the probe: cockatiel
   * moves to half-open lazily, when a call arrives.
   */
  get state(): BreakerState {
    return publicState(this.#policy.state);
  }

  /**
   * Throws CircuitOpenError when a call now would be refused: open and within
   * its break, or half-open with the probe under way. Lets a caller give up
   * before it waits for anything else (a connection slot).
   */
  refuseIfOpen(): void {
    const state = this.#policy.state;
    if (state === CircuitState.HalfOpen) throw this.#refusal();
    if (state !== CircuitState.Closed && Date.now() - this.#openedAt < this.#breakMs) throw this.#refusal();
  }

  /**
   * Runs `call` unless the circuit is open; `probe` is true for the one call that tests a half-open circuit.
   * Not an async function: the call's outcome passes through one callback, not an extra promise layer.
   */
  execute<T>(call: (probe: boolean) => Promise<T>, caller = NO_CALLER): Promise<T> {
    if (this.#policy.state === CircuitState.HalfOpen) return Promise.reject(this.#refusal());
    return this.#policy
      .execute(() => this.#run(call, caller))
      .then(undefined, (error: unknown) => {
        throw isBrokenCircuitError(error) ? this.#refusal() : error;
      });
  }

  #run<T>(call: (probe: boolean) => Promise<T>, caller: string): Promise<T> {
    // cockatiel switches to half-open before it invokes the probe, so the state read here is this call's role.
    const probe = this.#policy.state === CircuitState.HalfOpen;
    if (probe) return this.#runProbe(call, caller);
    const callers = this.#callers;
    // A caller's own breaker needs no wrapper: cockatiel awaits what this returns.
    if (callers === null) return call(false);
    return call(false).then(
      (value) => {
        callers.succeeded(caller);
        return value;
      },
      (error: unknown) => {
        if (typeof error === 'object' && error !== null) this.#callerOf.set(error, caller);
        throw error;
      },
    );
  }

  /** A downstream fault counts unless the shared circuit is closed and its caller fails alone (CallerAwareCounter). */
  #counts(error: unknown): boolean {
    if (this.#callers === null || this.#policy.state !== CircuitState.Closed) return true;
    return this.#callers.failed(this.#callerOf.get(error as object) ?? NO_CALLER);
  }

  async #runProbe<T>(call: (probe: boolean) => Promise<T>, caller: string): Promise<T> {
    try {
      const value = await call(true);
      this.#callers?.succeeded(caller);
      return value;
    } catch (error) {
      if (!isDownstreamAnswer(error) && typeof error === 'object' && error !== null)
        this.#inconclusiveProbes.add(error);
      throw error;
    }
  }

  /** Until the break ends; at least a second (a probe may be under way). */
  #refusal(): CircuitOpenError {
    const retryAfterSeconds = Math.max(Math.ceil((this.#openedAt + this.#breakMs - Date.now()) / 1000), 1);
    return new CircuitOpenError(this.#refusalMessage, { retryAfterSeconds });
  }
}

/** Calls that name no caller count as one caller. */
const NO_CALLER = '';

function counterFor(options: Required<BreakerOptions>): IBreaker {
  if (options.mode === 'consecutive') return new ConsecutiveBreaker(options.failureThreshold);
  // SamplingBreaker asks for a minimum rate, not a count: `minimumCalls` over the
  // window is the same rule. Half a call less keeps float rounding from needing one more.
  return new SamplingBreaker({
    threshold: options.failureRatio,
    duration: options.windowMs,
    minimumRps: (options.minimumCalls - 0.5) / (options.windowMs / 1000),
  });
}

function publicState(state: CircuitState): BreakerState {
  if (state === CircuitState.Closed) return 'closed';
  if (state === CircuitState.HalfOpen) return 'half-open';
  return 'open'; // Open, or Isolated (held open by hand; this gateway never does).
}

/** Only DownstreamCallErrors are ever counted, so the tipping failure is always one of them. */
function describeFailure(reason: FailureReason<unknown> | undefined): DownstreamFailure | undefined {
  return reason !== undefined && 'error' in reason && reason.error instanceof DownstreamCallError
    ? reason.error.data
    : undefined;
}

function notify(listener: ((change: BreakerStateChange) => void) | undefined, change: BreakerStateChange): void {
  try {
    listener?.(change);
  } catch (error) {
    // A metrics or log hook must never fail a tool call or leave the breaker half-updated.
    process.emitWarning(
      `Circuit breaker state listener threw: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
