import { DownstreamCallError } from '../errors.js';

/**
 * Failures that say the downstream itself is unwell: it could not be reached,
 * did not answer in time, or answered 5xx. A 4xx is the caller's fault, a
 * cancelled call is the caller's choice, and an oversized answer is about one
 * tool's data; none of them is evidence against the downstream.
 */
export function isDownstreamFault(error: unknown): boolean {
  if (!(error instanceof DownstreamCallError)) return false;
  const failure = error.data;
  switch (failure.reason) {
    case 'network':
    case 'timeout':
      return true;
    case 'status':
      return failure.downstreamStatus >= 500;
    default:
      return false;
  }
}

/** Answers that usually mean "try again in a moment": a proxy or the service is briefly unavailable. */
const TRANSIENT_STATUSES: ReadonlySet<number> = new Set([502, 503, 504]);

/**
 * Failures a second attempt may get past: the connection failed, or a 502,
 * 503 or 504 came back. A 500 is the downstream's own bug and a timeout has
 * already used the time a retry would need, so neither is retried.
 */
export function isTransientFault(error: unknown): boolean {
  if (!(error instanceof DownstreamCallError)) return false;
  const failure = error.data;
  return (
    failure.reason === 'network' || (failure.reason === 'status' && TRANSIENT_STATUSES.has(failure.downstreamStatus))
  );
}

/** The downstream did answer, whatever the answer was: proof that it is up. */
export function isDownstreamAnswer(error: unknown): boolean {
  if (!(error instanceof DownstreamCallError)) return false;
  const { reason } = error.data;
  return reason === 'status' || reason === 'response-too-large' || reason === 'response-too-deep';
}

export function isCallerAbort(error: unknown): boolean {
  return error instanceof DownstreamCallError && error.data.reason === 'aborted';
}

/**
 * Verbs sent again after a failure. Only the safe ones: PUT and DELETE are
 * idempotent by RFC 9110, but a downstream handler may not honour that (a
 * DELETE that writes an audit row, a PUT that bumps a version), and a request
 * that failed mid-way may already have taken effect.
 */
const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD']);

export function isIdempotent(method: string): boolean {
  return IDEMPOTENT_METHODS.has(method.toUpperCase());
}
