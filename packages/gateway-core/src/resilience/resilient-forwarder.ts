import { DownstreamCallError, GatewayError } from '../errors.js';
import type { Forwarder, ForwardResult } from '../forward/forwarder.js';
import type { ToolDefinition } from '../tools/definition.js';
import { DownstreamBreaker } from './breaker.js';
import { Deadline } from './deadline.js';
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

/**
 * Wraps `inner` in a circuit breaker, with retries inside it: the breaker
 * judges whole calls, so a GET that took three attempts counts once, and an
 * open circuit stops retries along with everything else.
 *
 * Throws CircuitOpenError (503 / -32003) at once while the circuit is open,
 * DownstreamCallError (502 / -32002) for a failed call, and whatever `inner`
 * throws before sending (e.g. a refused route value) unchanged.
 */
export function createResilientForwarder(inner: Forwarder, options: ResilienceOptions = {}): ResilientForwarder {
  const resolved = resolveResilienceOptions(options);
  const breaker = new DownstreamBreaker(resolved.breaker, options.onStateChange);

  return {
    get breakerState() {
      return breaker.state;
    },
    forward(tool: ToolDefinition, args: Record<string, unknown>, signal?: AbortSignal): Promise<ForwardResult> {
      return breaker.execute(async (probe) => {
        const deadline = new Deadline(resolved.deadlineMs, signal);
        const attempt = () => inner.forward(tool, args, deadline.signal);
        try {
          return await withRetries(tool.httpMethod, attempt, probe ? NO_RETRIES : resolved.retry, deadline);
        } catch (error) {
          throw settledFailure(error, deadline, tool);
        } finally {
          deadline.end();
        }
      });
    },
  };
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
