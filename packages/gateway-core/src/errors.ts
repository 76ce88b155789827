/**
 * Typed errors carrying the spec's HTTP status and JSON-RPC code (spec 7).
 * Code anywhere in the gateway throws these; the HTTP layer turns any thrown
 * value into a response through `describeError`, the one place that maps.
 */

export interface GatewayErrorOptions {
  cause?: unknown;
}

export abstract class GatewayError extends Error {
  abstract readonly httpStatus: number;
  abstract readonly jsonRpcCode: number;
  /** Short, stable summary of the error kind (RFC 9457 `title`). */
  abstract readonly title: string;

  constructor(message: string, options: GatewayErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
  }
}

/** Why a credential was refused; for logs only, never sent to the caller. */
export type UnauthorizedReason =
  | 'missing'
  | 'malformed'
  | 'signature'
  | 'algorithm'
  | 'claims'
  | 'expired'
  | 'unknown-agent'
  | 'inactive'
  | 'revoked'
  | 'api-key';

/** 401 / -32001: missing or invalid credential. */
export class UnauthorizedError extends GatewayError {
  readonly httpStatus = 401;
  readonly jsonRpcCode = -32001;
  readonly title = 'Unauthorized';
  readonly reason: UnauthorizedReason;

  constructor(message: string, reason: UnauthorizedReason, options?: GatewayErrorOptions) {
    super(message, options);
    this.reason = reason;
  }
}

/** 403 / -32003: a required scope is absent, or a write is blocked. */
export class ForbiddenError extends GatewayError {
  readonly httpStatus = 403;
  readonly jsonRpcCode = -32003;
  readonly title = 'Forbidden';
}

/** 429 / -32029: the agent's daily token budget is exhausted. */
export class BudgetExhaustedError extends GatewayError {
  readonly httpStatus = 429;
  readonly jsonRpcCode = -32029;
  readonly title = 'Daily token budget exhausted';
  /** ISO 8601 instant at which the budget rolls over (next 00:00 UTC). */
  readonly resetsAt: string;

  constructor(message: string, resetsAt: string, options?: GatewayErrorOptions) {
    super(message, options);
    this.resetsAt = resetsAt;
  }
}

/** 502 / -32002: the downstream API failed or answered with an error. */
export class DownstreamError extends GatewayError {
  readonly httpStatus = 502;
  readonly jsonRpcCode = -32002;
  readonly title = 'Downstream API error';
}

/** 503 / -32003: the circuit breaker is open; the downstream is isolated. */
export class CircuitOpenError extends GatewayError {
  readonly httpStatus = 503;
  readonly jsonRpcCode = -32003;
  readonly title = 'Downstream isolated (circuit open)';
}

/** 404 / -32602: an unknown agent, tool or resource. */
export class NotFoundError extends GatewayError {
  readonly httpStatus = 404;
  readonly jsonRpcCode = -32602;
  readonly title = 'Not found';
}

export interface InvalidField {
  /** Dotted path of the offending field; empty for the whole body. */
  path: string;
  message: string;
}

/** 400 / -32602: the request is well-formed but its values are not acceptable. */
export class InvalidInputError extends GatewayError {
  readonly httpStatus = 400;
  readonly jsonRpcCode = -32602;
  readonly title = 'Invalid input';
  readonly fields: InvalidField[];

  constructor(message: string, fields: InvalidField[] = [], options?: GatewayErrorOptions) {
    super(message, options);
    this.fields = fields;
  }
}

/**
 * 503 / -32003: the key-value store cannot be reached. Same code as an open
 * breaker on purpose: both mean "the gateway cannot serve this now, retry
 * later", and nothing is charged or forwarded.
 */
export class StoreUnavailableError extends GatewayError {
  readonly httpStatus = 503;
  readonly jsonRpcCode = -32003;
  readonly title = 'Store unavailable';
}

/** One value that cannot be run with: where it is, and what is wrong with it. */
export interface ConfigProblem {
  /**
   * Where: the option path as the core names it (`breaker.failureThreshold`,
   * `signingKey`, `store.url`, `downstream.headers.X-Api-Key`,
   * `privacy.rules.0.pattern`), or the name a configuration loader gave it.
   */
  path: string;
  message: string;
}

/**
 * Options the gateway cannot run with. Not a GatewayError: it never reaches
 * a client, it stops start-up with one line per problem (`path: message`).
 */
export class ConfigError extends Error {
  readonly problems: readonly ConfigProblem[];

  constructor(problems: readonly ConfigProblem[]) {
    super(problems.map(({ path, message }) => `${path}: ${message}`).join('\n'));
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

export interface ErrorDescription {
  httpStatus: number;
  jsonRpcCode: number;
  title: string;
  /** Safe to send to the caller. */
  detail: string;
  /** False for unexpected errors: log them, never show their message. */
  expected: boolean;
}

/**
 * The one mapping from a thrown value to what the caller sees. Anything that
 * is not a GatewayError is an internal error whose message stays in the logs.
 */
export function describeError(error: unknown): ErrorDescription {
  if (error instanceof GatewayError) {
    return {
      httpStatus: error.httpStatus,
      jsonRpcCode: error.jsonRpcCode,
      title: error.title,
      detail: error.message,
      expected: true,
    };
  }
  return {
    httpStatus: 500,
    jsonRpcCode: -32603,
    title: 'Internal error',
    detail: 'The gateway failed to handle the request.',
    expected: false,
  };
}
