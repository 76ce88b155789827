import { DownstreamCallError, GatewayError, OverloadedError } from '../errors.js';
import type { Forwarder, ForwardOptions, ForwardResult } from '../forward/forwarder.js';
import { buildDownstreamRequest } from '../forward/request.js';
import type { ToolDefinition } from '../tools/definition.js';
import { DownstreamBreaker } from './breaker.js';
import { CallerBreakers } from './caller-breakers.js';
import { Deadline } from './deadline.js';
import { FairSlots, type ReleaseSlot } from './fair-slots.js';
import { isCallerAbort, isDownstreamAnswer } from './failures.js';
import { resolveResilienceOptions, type BreakerState, type ResilienceOptions, type RetryOptions } from './options.js';
import { withRetries } from './retry.js';

/** A Forwarder that isolates a failing downstream and retries safe calls. */
export interface ResilientForwarder extends Forwarder {
  /** For readiness and metrics; see also `onStateChange`. */
  readonly breakerState: BreakerState;
}

/** The probe of a half-open circuit is sent once: its one answer is the verdict. */
const NO_RETRIES: Required<RetryOptions> = { retries: 0, minDelayMs: 1, maxDelayMs: 1 };

/** The queue of calls that name no agent. */
const NO_AGENT = '';

/**
 * Wraps `inner` in a circuit breaker, with retries inside it: the breaker
 * judges whole calls, so a GET that took three attempts counts once, and an
 * open circuit stops retries along with everything else.
 *
 * The breaker judges only the downstream. Each call first takes one of
 * `connections` slots (agents take turns, see FairSlots), and its deadline
 * starts only once it holds one: time queued inside the gateway never ends
 * as a timeout. A call that gets no slot within `deadlineMs` is refused with
 * OverloadedError, which the breaker never sees. The half-open probe runs to
 * its end whatever its caller does (the caller who leaves is answered at
 * once), so its verdict is always the downstream's.
 *
 * Each caller (agent) also has a breaker of its own with the same settings,
 * and the shared one counts a caller's faults only while no other caller
 * shows the downstream working (see CallerAwareCounter): an agent whose
 * calls keep failing while others' succeed is held back alone.
 *
 * Throws CircuitOpenError (503 / -32003) at once while the circuit is open (the shared one or the caller's own),
 * OverloadedError (503 / -32003) when no slot came free in time,
 * DownstreamCallError (502 / -32002) for a failed call, and whatever `inner`
 * throws before sending (e.g. a refused route value) unchanged.
 */
export function createResilientForwarder(inner: Forwarder, options: ResilienceOptions = {}): ResilientForwarder {
  const resolved = resolveResilienceOptions(options);
  const breaker = new DownstreamBreaker(resolved.breaker, options.onStateChange, options.downstream);
  const slots = new FairSlots(resolved.connections);
  const callerBreakers = new CallerBreakers(resolved.breaker, options.downstream);

  /** One call holding its slot: the deadline starts now. The probe's is not tied to its caller. */
  const send = (
    tool: ToolDefinition,
    args: Record<string, unknown>,
    signal: AbortSignal | undefined,
    probe: boolean,
    who: ForwardOptions | undefined,
  ): Promise<ForwardResult> => {
    const deadline = new Deadline(resolved.deadlineMs, probe ? undefined : signal);
    // Every attempt is for the same call: the same options (agent, call id) each time.
    const attempt = () => inner.forward(tool, args, deadline.signal, who);
    let attempts: Promise<ForwardResult>;
    try {
      attempts = withRetries(tool.httpMethod, attempt, probe ? NO_RETRIES : resolved.retry, deadline);
    } catch (error) {
      attempts = Promise.reject(error);
    }
    // Plain callbacks rather than an async function's try/finally: a promise layer less on every call.
    return attempts.then(
      (result) => {
        deadline.end();
        return result;
      },
      (error: unknown) => {
        const failure = settledFailure(error, deadline, tool);
        deadline.end();
        throw failure;
      },
    );
  };

  return {
    get breakerState() {
      return breaker.state;
    },
    forward(
      tool: ToolDefinition,
      args: Record<string, unknown>,
      signal?: AbortSignal,
      forwardOptions?: ForwardOptions,
    ): Promise<ForwardResult> {
      try {
        breaker.refuseIfOpen();
        callerBreakers.of(forwardOptions?.agentId ?? NO_AGENT).refuseIfOpen();
      } catch (error) {
        return Promise.reject(error);
      }
      // A free slot is taken in this turn (the common case); otherwise the call waits its turn.
      const free = signal?.aborted ? null : slots.tryAcquire();
      if (free) return sendHolding(free, tool, args, signal, forwardOptions);
      return slots.acquire(forwardOptions?.agentId ?? NO_AGENT, resolved.deadlineMs, signal).then((slot) => {
        if (slot === 'aborted') throw cancelled(tool, signal);
        if (slot === 'timed-out') {
          throw new OverloadedError(
            `No connection to the downstream came free within ${resolved.deadlineMs} ms (all ` +
              `${resolved.connections} in use); try again shortly.`,
          );
        }
        return sendHolding(slot, tool, args, signal, forwardOptions);
      });
    },
  };

  /**
   * Sends through the breaker while holding `slot`, which goes
   * back when the downstream call ends, not when the caller leaves.
   */
  function sendHolding(
    slot: ReleaseSlot,
    tool: ToolDefinition,
    args: Record<string, unknown>,
    signal: AbortSignal | undefined,
    who: ForwardOptions | undefined,
  ): Promise<ForwardResult> {
    try {
      // Read in the same turn as execute, so the state cannot move in between:
      // a value no request can carry is refused here and never becomes the probe.
      if (breaker.state !== 'closed') buildDownstreamRequest(tool, args);
    } catch (error) {
      slot();
      return Promise.reject(error);
    }
    const caller = who?.agentId ?? NO_AGENT;
    const own = callerBreakers.of(caller);
    // The caller's own breaker inside the shared one: each judges the same outcome, the shared one knowing whose it is.
    const outcome = breaker.execute(
      (probe) => own.execute((ownProbe) => send(tool, args, signal, probe || ownProbe, who)),
      caller,
    );
    void outcome.then(slot, slot);
    return untilCallerLeaves(outcome, signal, tool);
  }
}

/**
 * The call's outcome, or its cancellation as soon as the caller leaves: a
 * probe keeps running without its caller, and any other call is cut short by
 * the same signal anyway.
 */
function untilCallerLeaves<T>(outcome: Promise<T>, signal: AbortSignal | undefined, tool: ToolDefinition): Promise<T> {
  if (signal === undefined) return outcome;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(cancelled(tool, signal));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    // The listener goes in the same callback as the outcome: no `finally` and its two extra promises.
    void outcome.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

function cancelled(tool: ToolDefinition, signal: AbortSignal | undefined): DownstreamCallError {
  return new DownstreamCallError(
    `Call to tool ${tool.name} was cancelled`,
    { reason: 'aborted' },
    { cause: signal?.reason },
  );
}

/**
 * The deadline and the caller's cancel both reach `inner` as an abort (which
 * `inner` may report as a network error when the abort reason is not an
 * AbortError), and p-retry rejects with the signal's reason when one fires
 * between attempts. Put back what happened: the budget ran out (a timeout,
 * which the breaker counts) or the caller gave up (which it does not).
 * Answers of the downstream and the gateway's own refusals pass unchanged.
 */
function settledFailure(error: unknown, deadline: Deadline, tool: ToolDefinition): unknown {
  if (!deadline.signal.aborted) return error;
  if (isDownstreamAnswer(error)) return error;
  if (error instanceof GatewayError && !(error instanceof DownstreamCallError)) return error;
  if (deadline.expired) {
    return new DownstreamCallError(
      `Downstream did not answer tool ${tool.name} within ${deadline.budgetMs} ms`,
      { reason: 'timeout', timeoutMs: deadline.budgetMs },
      { cause: error },
    );
  }
  if (isCallerAbort(error)) return error;
  return new DownstreamCallError(`Call to tool ${tool.name} was cancelled`, { reason: 'aborted' }, { cause: error });
}
