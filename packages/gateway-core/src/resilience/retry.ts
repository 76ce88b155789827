import pRetry from 'p-retry';
import type { Deadline } from './deadline.js';
import { isIdempotent, isTransientFault } from './failures.js';
import type { RetryOptions } from './options.js';

/**
 * Runs `attempt`, and again up to `options.retries` times when the verb is
 * safe to repeat and the failure is transient. Waits are short and jittered
 * (so instances do not retry in lockstep) and never outlast the deadline: a
 * retry whose wait would not fit is not made, and the last real failure is
 * reported instead of a timeout.
 *
 * The first attempt runs outside p-retry, which costs a few promise layers
 * and an options copy per call although most calls succeed at once; it does
 * what p-retry does around a first attempt (refuse when the deadline already
 * fired, and when it fired while the attempt was answering). A first failure
 * is handed to p-retry as its own first attempt, so the decision, the delays
 * and every later attempt are p-retry's, exactly as before.
 */
export function withRetries<T>(
  method: string,
  attempt: () => Promise<T>,
  options: Required<RetryOptions>,
  deadline: Deadline,
): Promise<T> {
  if (options.retries === 0 || !isIdempotent(method)) return attempt();
  const signal = deadline.signal;
  if (signal.aborted) return Promise.reject(signal.reason);
  let first: Promise<T>;
  try {
    first = attempt();
  } catch (error) {
    first = Promise.reject(error);
  }
  return first.then(
    (result) => {
      if (signal.aborted) throw signal.reason;
      return result;
    },
    (error: unknown) => retryAfter(error, attempt, options, deadline),
  );
}

/** p-retry from the first attempt's failure on: its attempt 1 replays that failure, later ones are real. */
function retryAfter<T>(
  firstFailure: unknown,
  attempt: () => Promise<T>,
  options: Required<RetryOptions>,
  deadline: Deadline,
): Promise<T> {
  return pRetry((attemptNumber) => (attemptNumber === 1 ? Promise.reject(firstFailure) : attempt()), {
    retries: options.retries,
    minTimeout: options.minDelayMs,
    maxTimeout: options.maxDelayMs,
    factor: 2,
    randomize: true,
    signal: deadline.signal,
    shouldRetry: ({ error, retryDelay }) => isTransientFault(error) && retryDelay < deadline.remainingMs(),
  });
}
