import {
  ERROR_CATALOGUE,
  type Delivery,
  type ErrorCode,
  type ErrorKind,
  type FailureOutcome,
} from './error-catalogue.js';

/**
 * The gateway's errors. Each carries a `code` of the error catalogue, which
 * decides its HTTP status, JSON-RPC code, title and audit outcome; the
 * classes only add what a caller can act on (a reason, fields, a reset time,
 * the downstream's failure). Code anywhere in the gateway throws these; the
 * transports turn any thrown value into an answer through `describeError`.
 */

export interface GatewayErrorOptions {
  cause?: unknown;
}

export class GatewayError extends Error {
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options: GatewayErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
  }

  /** This error's row of the catalogue. */
  get kind(): ErrorKind {
    return ERROR_CATALOGUE[this.code];
  }

  get httpStatus(): number {
    return this.kind.httpStatus;
  }

  get jsonRpcCode(): number {
    return this.kind.jsonRpcCode;
  }

  /** Short, stable summary of the error kind (RFC 9457 `title`). */
  get title(): string {
    return this.kind.title;
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

/** Missing or invalid credential. */
export class UnauthorizedError extends GatewayError {
  readonly reason: UnauthorizedReason;

  constructor(message: string, reason: UnauthorizedReason, options?: GatewayErrorOptions) {
    super('unauthorized', message, options);
    this.reason = reason;
  }
}

/** A required scope is absent, or a write is blocked. */
export class ForbiddenError extends GatewayError {
  constructor(
    message: string,
    options?: GatewayErrorOptions & { code?: 'forbidden' | 'not-allowlisted' | 'write-blocked' },
  ) {
    super(options?.code ?? 'forbidden', message, options);
  }
}

/** The access rule that refused a tool to an agent. */
export type ToolRefusal = 'not-allowlisted' | 'missing-scopes' | 'write-blocked';

/** A tool the agent may not call, with the rule that refused it (and, for scopes, which are missing). */
export class ToolRefusedError extends ForbiddenError {
  readonly data: { reason: ToolRefusal; missingScopes?: string[] };

  constructor(
    readonly reason: ToolRefusal,
    message: string,
    missingScopes?: readonly string[],
  ) {
    super(message, { code: reason === 'missing-scopes' ? 'forbidden' : reason });
    this.data = missingScopes ? { reason, missingScopes: [...missingScopes] } : { reason };
  }
}

/** The agent's daily token budget is exhausted. */
export class BudgetExhaustedError extends GatewayError {
  /** ISO 8601 instant at which the budget rolls over (next 00:00 UTC). */
  readonly resetsAt: string;
  /** What a client can act on: when to come back, and the budget it ran out of. */
  readonly data: { resetsAt: string; retryAfterSeconds: number; dailyTokenBudget?: number; remaining: number };

  constructor(
    message: string,
    resetsAt: string,
    options?: GatewayErrorOptions & { dailyTokenBudget?: number; now?: Date },
  ) {
    super('budget-exhausted', message, options);
    this.resetsAt = resetsAt;
    const now = options?.now ?? new Date();
    const retryAfterSeconds = Math.max(Math.ceil((Date.parse(resetsAt) - now.getTime()) / 1000), 1);
    this.data = {
      resetsAt,
      retryAfterSeconds,
      ...(options?.dailyTokenBudget === undefined ? {} : { dailyTokenBudget: options.dailyTokenBudget }),
      remaining: 0,
    };
  }
}

/**
 * The agent called faster than its rate limit allows. Its `data` has the
 * budget refusal's shape (`resetsAt`, `retryAfterSeconds`, `remaining: 0`),
 * `resetsAt` being when the next call passes, plus the limit and a `reason`.
 */
export class RateLimitedError extends GatewayError {
  readonly data: {
    reason: 'rate-limited';
    resetsAt: string;
    retryAfterSeconds: number;
    callsPerMinute: number;
    burst: number;
    remaining: 0;
  };

  constructor(
    message: string,
    limit: { callsPerMinute: number; burst: number },
    retryAfterMs: number,
    options?: GatewayErrorOptions & { now?: Date },
  ) {
    super('rate-limited', message, options);
    const now = options?.now ?? new Date();
    const retryAfterSeconds = Math.max(Math.ceil(retryAfterMs / 1000), 1);
    const resetsAt = new Date(now.getTime() + Math.max(retryAfterMs, 0)).toISOString();
    this.data = {
      reason: 'rate-limited',
      resetsAt,
      retryAfterSeconds,
      callsPerMinute: limit.callsPerMinute,
      burst: limit.burst,
      remaining: 0,
    };
  }
}

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
  | { reason: 'response-too-deep'; limitDepth: number }
  /** Decoding the answer needed more memory than the gateway gives one answer (`heapLimitMb`). */
  | { reason: 'response-too-complex'; heapLimitMb: number };

export interface DownstreamCallErrorOptions extends GatewayErrorOptions {
  /**
   * What the downstream answered with its error status (decoded, bounded), for
   * the model to read once filtered. Never sent as `data`: it is unfiltered.
   */
  answer?: unknown;
}

/** The downstream API failed or answered with an error. */
export class DownstreamError extends GatewayError {
  constructor(message: string, options?: GatewayErrorOptions) {
    super('downstream-error', message, options);
  }
}

/** A forwarded call that failed, with the failure as data. */
export class DownstreamCallError extends DownstreamError {
  readonly data: DownstreamFailure;
  readonly answer: unknown;

  constructor(message: string, data: DownstreamFailure, options?: DownstreamCallErrorOptions) {
    super(message, options);
    this.data = data;
    this.answer = options?.answer;
  }
}

/** The circuit breaker is open; the downstream is isolated. */
export class CircuitOpenError extends GatewayError {
  readonly data: { retryAfterSeconds: number } | undefined;

  constructor(message: string, options?: GatewayErrorOptions & { retryAfterSeconds?: number }) {
    super('circuit-open', message, options);
    this.data = options?.retryAfterSeconds === undefined ? undefined : { retryAfterSeconds: options.retryAfterSeconds };
  }
}

/**
 * The agent already has as many tools/call requests in flight on this
 * instance as it may: refused before anything is reserved or forwarded.
 */
export class TooManyCallsError extends GatewayError {
  readonly data: { limit: number; retryAfterSeconds: number };

  constructor(message: string, limit: number, options?: GatewayErrorOptions) {
    super('too-many-calls', message, options);
    // A place frees as soon as one of the agent's calls ends: a second is plenty.
    this.data = { limit, retryAfterSeconds: 1 };
  }
}

/** No connection to the downstream came free in time: the gateway is at its limit, the downstream is not judged. */
export class OverloadedError extends GatewayError {
  readonly data: { retryAfterSeconds: number };

  constructor(message: string, options?: GatewayErrorOptions) {
    super('overloaded', message, options);
    this.data = { retryAfterSeconds: 1 };
  }
}

/** Too many failed sign-ins from one client address: refused, without comparing the key, until the backoff passes. */
export class TooManyAttemptsError extends GatewayError {
  readonly data: { retryAfterSeconds: number };

  constructor(message: string, retryAfterSeconds: number, options?: GatewayErrorOptions) {
    super('too-many-attempts', message, options);
    this.data = { retryAfterSeconds: Math.max(1, Math.ceil(retryAfterSeconds)) };
  }
}

/** The key-value store cannot be reached. */
export class StoreUnavailableError extends GatewayError {
  constructor(message: string, options?: GatewayErrorOptions) {
    super('store-unavailable', message, options);
  }
}

/** The store, the embedding model or the tools are not ready yet. */
export class NotReadyError extends GatewayError {
  constructor(message: string) {
    super('not-ready', message);
  }
}

/** A trusted OAuth issuer's signing keys could not be fetched. */
export class IssuerUnavailableError extends GatewayError {
  constructor(message: string, options?: GatewayErrorOptions) {
    super('issuer-unavailable', message, options);
  }
}

/**
 * An OAuth token lacks scopes the tool requires and its agent holds: the
 * client may get them from its authorization server and call again.
 */
export class InsufficientScopeError extends GatewayError {
  readonly data: { missingScopes: string[] };

  constructor(
    message: string,
    missingScopes: readonly string[],
    /** What the client should ask its issuer for: the scopes it has and those it lacks. */
    readonly scopesToRequest: readonly string[],
  ) {
    super('insufficient-scope', message);
    this.data = { missingScopes: [...missingScopes] };
  }
}

/** A change that would give an external identity to a second agent. */
export class SubjectTakenError extends GatewayError {
  constructor(
    message: string,
    /** The agent the identity belongs to. */
    readonly ownerAgentId: string,
  ) {
    super('conflict', message);
  }
}

/** An unknown agent or resource. */
export class NotFoundError extends GatewayError {
  constructor(message: string, options?: GatewayErrorOptions) {
    super('not-found', message, options);
  }
}

export interface InvalidField {
  /** Dotted path of the offending field; empty for the whole body. */
  path: string;
  message: string;
}

/** The request is well-formed but its values are not acceptable. */
export class InvalidInputError extends GatewayError {
  readonly fields: InvalidField[];

  constructor(
    message: string,
    fields: InvalidField[] = [],
    options?: GatewayErrorOptions & { code?: 'invalid-input' | 'unknown-tool' | 'invalid-arguments' },
  ) {
    super(options?.code ?? 'invalid-input', message, options);
    this.fields = fields;
  }
}

/** tools/call named no tool, or one the registry does not know. */
export class UnknownToolError extends InvalidInputError {
  constructor(message: string, fields: InvalidField[]) {
    super(message, fields, { code: 'unknown-tool' });
  }
}

/** Arguments that do not fit the tool, or cannot be sent to the downstream. */
export class InvalidArgumentsError extends InvalidInputError {
  constructor(message: string, fields: InvalidField[]) {
    super(message, fields, { code: 'invalid-arguments' });
  }
}

/** The body is not JSON. */
export class ParseError extends GatewayError {
  constructor(message: string) {
    super('parse-error', message);
  }
}

/** JSON, but not a JSON-RPC message the gateway accepts; or a request at the wrong moment. */
export class InvalidRequestError extends GatewayError {
  constructor(message: string) {
    super('invalid-request', message);
  }
}

/** A well-formed request for a method the gateway does not serve (answered in HTTP 200, see the catalogue). */
export class MethodNotFoundError extends GatewayError {
  constructor(method: string) {
    super('method-not-found', `Method not found: ${method}`);
  }
}

/** A 2026-07-28 request for a method that revision lacks (or the gateway does not serve): HTTP 404, -32601. */
export class UnknownMethodError extends GatewayError {
  constructor(message: string) {
    super('unknown-method', message);
  }
}

/** MCP 2026-07-28 HeaderMismatch: a required request header is missing, malformed, or disagrees with the body. */
export class HeaderMismatchError extends GatewayError {
  constructor(message: string) {
    super('header-mismatch', message);
  }
}

/** A write needing the user's confirmation, asked of a client whose revision has no way to ask (before 2026-07-28). */
export class ConfirmationUnavailableError extends GatewayError {
  constructor(message: string) {
    super('confirmation-unavailable', message);
  }
}

/** MCP 2026-07-28 MissingRequiredClientCapability (-32021): `data.requiredCapabilities` names what the client lacks. */
export class MissingClientCapabilityError extends GatewayError {
  readonly data: { requiredCapabilities: Record<string, object> };

  constructor(message: string, requiredCapabilities: Record<string, object>) {
    super('missing-client-capability', message);
    this.data = { requiredCapabilities };
  }
}

/** The user declined or cancelled the confirmation of a write. */
export class ConfirmationDeclinedError extends GatewayError {
  constructor(message: string) {
    super('confirmation-declined', message);
  }
}

/** A retried call's `requestState` that does not check out (see the catalogue's row). */
export class InvalidRequestStateError extends GatewayError {
  constructor(message: string) {
    super('invalid-request-state', message);
  }
}

/** A `subscriptions/listen` past the agent's (or the instance's) bound of open streams. */
export class TooManyListensError extends GatewayError {
  constructor(message: string) {
    super('too-many-listens', message);
  }
}

/** A 2026-07-28 request whose `_meta` envelope lacks a field every such request carries. */
export class InvalidEnvelopeError extends GatewayError {
  constructor(message: string) {
    super('invalid-envelope', message);
  }
}

/** MCP 2026-07-28 UnsupportedProtocolVersion: `data` names the versions served and the one asked for. */
export class UnsupportedProtocolVersionError extends GatewayError {
  readonly data: { supported: readonly string[]; requested: string | null };

  constructor(requested: string | null, supported: readonly string[]) {
    super(
      'unsupported-protocol-version',
      `Unsupported protocol version: ${JSON.stringify(requested)}; supported: ${supported.join(', ')}`,
    );
    this.data = { supported, requested };
  }
}

/**
 * The Mcp-Session-Id names no live session of this agent. Unknown, expired,
 * ended and another agent's sessions look the same, so a session id reveals
 * nothing about sessions the caller does not own.
 */
export class SessionNotFoundError extends GatewayError {
  constructor() {
    super('session-not-found', 'Session not found: initialize a new session');
  }
}

/** A stream resumed with `Last-Event-ID` whose answer is not kept (any more). */
export class StreamGoneError extends GatewayError {
  constructor() {
    super('stream-gone', 'The answer of this stream is no longer kept: call the tool again');
  }
}

/**
 * The client went away before its tools/call was answered: the downstream
 * call is cancelled where it still can be, nothing is charged, and the audit
 * trail says so. Never delivered (nobody is listening); its status is for logs.
 */
export class ClientGoneError extends GatewayError {
  constructor(message = 'The client closed the connection before the answer was sent', options?: GatewayErrorOptions) {
    super('client-gone', message, options);
  }
}

/** The HTTP request is not one the endpoint accepts: method, media type, size, or a body cut short. */
export class TransportError extends GatewayError {
  constructor(
    code:
      | 'method-not-allowed'
      | 'not-acceptable'
      | 'body-too-large'
      | 'unsupported-media-type'
      | 'incomplete-body'
      | 'too-many-uploads',
    message: string,
    options?: GatewayErrorOptions,
  ) {
    super(code, message, options);
  }
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
  /** The catalogue's code; `internal` for anything that is not a GatewayError. */
  code: ErrorCode;
  httpStatus: number;
  jsonRpcCode: number;
  title: string;
  /** Safe to send to the caller. */
  detail: string;
  /** How a tools/call that ended with this error is audited and counted. */
  outcome: FailureOutcome;
  /** How the MCP endpoint delivers it by default. */
  delivery: Delivery;
  /** False for unexpected errors: log them, never show their message. */
  expected: boolean;
}

const INTERNAL_DETAIL = 'The gateway failed to handle the request.';

/**
 * The one mapping from a thrown value to what the caller sees, through the
 * catalogue. Anything that is not a GatewayError is an internal error whose
 * message stays in the logs.
 */
export function describeError(error: unknown): ErrorDescription {
  const known = error instanceof GatewayError;
  const code = known ? error.code : 'internal';
  const { httpStatus, jsonRpcCode, title, outcome, delivery } = ERROR_CATALOGUE[code];
  return {
    code,
    httpStatus,
    jsonRpcCode,
    title,
    outcome,
    delivery,
    detail: known ? error.message : INTERNAL_DETAIL,
    expected: known,
  };
}
