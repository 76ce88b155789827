import { DownstreamError } from '../errors.js';

/**
 * Why a forwarded call failed, sent to the agent as `error.data`. The reason
 * also lets a circuit breaker or retry policy tell failures of the downstream
 * (network, timeout, 5xx) from answers it gave on purpose (4xx).
 */
export type DownstreamFailure =
  | { reason: 'status'; downstreamStatus: number }
  | { reason: 'timeout'; timeoutMs: number }
  | { reason: 'network'; code: string | null }
  | { reason: 'aborted' }
  | { reason: 'response-too-large'; limitBytes: number }
  | { reason: 'response-too-deep'; limitDepth: number };

/** 502 / -32002 with the failure as data. */
export class DownstreamCallError extends DownstreamError {
  readonly data: DownstreamFailure;

  constructor(message: string, data: DownstreamFailure, options?: { cause?: unknown }) {
    super(message, options);
    this.data = data;
  }
}
