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
 */
export function withRetries<T>(method: string, attempt: () => Promise<T>, options: Required<RetryOptions>, deadline: Deadline): Promise<T> {
  if (options.retries === 0 || !isIdempotent(method)) return attempt();
  return pRetry(attempt, {
    retries: options.retries,
    minTimeout: options.minDelayMs,
    maxTimeout: options.maxDelayMs,
    factor: 2,
    randomize: true,
    signal: deadline.signal,
    shouldRetry: ({ error, retryDelay }) => isTransientFault(error) && retryDelay < deadline.remainingMs(),
  });
}
