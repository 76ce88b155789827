/**
 * Every way a request to the gateway can fail, in one table (contract 7):
 * the stable code, the title a person reads, the HTTP status, the JSON-RPC
 * code, and the outcome the audit trail and the metrics record for a
 * tools/call that ends this way (the outcome is also the `outcome` metric
 * label). Error classes carry a code; every mapping (HTTP, JSON-RPC,
 * problem+json, audit, metrics, traces) reads this table, never the class.
 */

/** How a failed tools/call is named in the audit trail and the metrics, in the order dashboards list them. */
export const FAILURE_OUTCOMES = [
  'unauthorized',
  'forbidden',
  'not-allowlisted',
  'write-blocked',
  'invalid-arguments',
  'unknown-tool',
  'budget-exhausted',
  /** The agent called faster than its rate limit (calls per minute, with a burst) allows. */
  'rate-limited',
  /** The agent has as many tools/call requests in flight on this instance as it may. */
  'too-many-calls',
  'circuit-open',
  /** Every connection to the downstream stayed busy for the call's whole deadline. */
  'overloaded',
  'downstream-error',
  'store-unavailable',
  /** Not ready yet (readiness failing or tools not loaded). */
  'unavailable',
  /** Refused before the call was understood: session, protocol version, transport. */
  'invalid-request',
  'internal-error',
  /** The client went away before the answer was sent (the call cancelled, nothing charged). */
  'client-gone',
  /**
   * A write needing the user's confirmation was not confirmed: declined, altered, replayed or forged
   * confirmation, or a client that cannot be asked (an older revision, no elicitation). Nothing forwarded or charged.
   */
  'not-confirmed',
] as const;

export type FailureOutcome = (typeof FAILURE_OUTCOMES)[number];

/**
 * How the MCP endpoint delivers an error by default (MCP's own rules; the
 * `http-status` setting answers every error with `httpStatus` instead):
 * - `tool-error`: a tools/call result with `isError: true`, in HTTP 200, so
 *   the model reads what went wrong and can correct itself;
 * - `in-band`: a JSON-RPC error in HTTP 200 (a refusal the client can act on);
 * - `http`: the HTTP status, with the JSON-RPC error as the body (credentials,
 *   sessions, malformed requests, outages: what MCP's transport rules give a status).
 */
export type Delivery = 'tool-error' | 'in-band' | 'http';

export interface ErrorKind {
  title: string;
  httpStatus: number;
  jsonRpcCode: number;
  outcome: FailureOutcome;
  delivery: Delivery;
}

// JSON-RPC codes: contract 7 for the gateway's own failures, JSON-RPC 2.0 for protocol errors.
const UNAUTHORIZED = -32001;
const DOWNSTREAM = -32002;
const REFUSED = -32003;
const BUDGET = -32029;
const PARSE = -32700;
const INVALID_REQUEST = -32600;
const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;
const INTERNAL = -32603;
// MCP 2026-07-28's own codes, from the range (-32020 to -32099) that revision reserves for the specification.
const HEADER_MISMATCH = -32020;
const MISSING_REQUIRED_CLIENT_CAPABILITY = -32021;
const UNSUPPORTED_PROTOCOL_VERSION = -32022;

const kind = (
  httpStatus: number,
  jsonRpcCode: number,
  title: string,
  outcome: FailureOutcome,
  delivery: Delivery = 'http',
): ErrorKind => ({
  httpStatus,
  jsonRpcCode,
  title,
  outcome,
  delivery,
});

export const ERROR_CATALOGUE = {
  // Contract 7: the gateway's refusals and failures.
  unauthorized: kind(401, UNAUTHORIZED, 'Unauthorized', 'unauthorized'),
  /** A required scope is absent (contract 5 rule 6). */
  forbidden: kind(403, REFUSED, 'Forbidden', 'forbidden', 'in-band'),
  /**
   * An OAuth token lacks a scope its agent holds: HTTP 403 whatever the delivery
   * setting, so the client can ask its authorization server for the scope (MCP authorization, step-up).
   */
  'insufficient-scope': kind(403, REFUSED, 'Insufficient scope', 'forbidden'),
  'not-allowlisted': kind(403, REFUSED, 'Forbidden', 'not-allowlisted', 'in-band'),
  'write-blocked': kind(403, REFUSED, 'Forbidden', 'write-blocked', 'in-band'),
  /**
   * The admin sign-in (API and dashboard) refuses a client address after too
   * many wrong keys, until its backoff passes. Never reaches /mcp; its
   * JSON-RPC code is the request-level one, not the budget's -32029.
   */
  'too-many-attempts': kind(429, INVALID_REQUEST, 'Too many attempts', 'unauthorized'),
  'budget-exhausted': kind(429, BUDGET, 'Daily token budget exhausted', 'budget-exhausted', 'in-band'),
  /**
   * The agent's rate limit (`rateLimit`: calls per minute with a burst). The
   * budget's status, code and data shape on purpose: it is the same kind of
   * refusal (a per-agent allowance used up, come back at `retryAfterSeconds`),
   * so a client that handles the budget's handles this one; `data.reason` tells them apart.
   */
  'rate-limited': kind(429, BUDGET, 'Rate limit exceeded', 'rate-limited', 'in-band'),
  /** The downstream answered an error, timed out, or its answer could not be read: the tool failed. */
  'downstream-error': kind(502, DOWNSTREAM, 'Downstream API error', 'downstream-error', 'tool-error'),
  'circuit-open': kind(503, REFUSED, 'Downstream isolated (circuit open)', 'circuit-open', 'in-band'),
  /**
   * The agent's in-flight tools/call limit on this instance. A 429 like the
   * budget's, but -32003 ("refused, retry later"): -32029 is for an agent's
   * allowance used up (contract 7's budget, and its rate limit), and this
   * refusal clears as soon as one of the agent's calls ends.
   */
  'too-many-calls': kind(429, REFUSED, 'Too many concurrent calls', 'too-many-calls', 'in-band'),
  /**
   * No connection to the downstream came free within the call's deadline: the
   * gateway's own queue, never the downstream's fault (the breaker does not count it).
   */
  overloaded: kind(503, REFUSED, 'Gateway overloaded', 'overloaded', 'in-band'),
  /** MCP 2026-07-28 `subscriptions/listen`: the agent (or the instance) holds as many listen streams as it may. */
  'too-many-listens': kind(429, REFUSED, 'Too many listen streams', 'invalid-request'),
  /**
   * Same code as an open breaker on purpose: both mean "the gateway cannot
   * serve this now, retry later", and nothing is charged or forwarded.
   */
  'store-unavailable': kind(503, REFUSED, 'Store unavailable', 'store-unavailable'),
  /** Until the store, the embedding model and the tools are ready (contract 4.4). */
  'not-ready': kind(503, REFUSED, 'Service unavailable', 'unavailable'),
  /** A trusted OAuth issuer's keys cannot be fetched: the token may be fine, so it is not refused as invalid. */
  'issuer-unavailable': kind(503, REFUSED, 'Identity provider unavailable', 'unavailable'),

  // Input the gateway cannot act on.
  'not-found': kind(404, INVALID_PARAMS, 'Not found', 'invalid-request'),
  /** A change that would break a uniqueness rule (an external identity already belonging to another agent). */
  conflict: kind(409, INVALID_PARAMS, 'Conflict', 'invalid-request'),
  'invalid-input': kind(400, INVALID_PARAMS, 'Invalid input', 'invalid-request', 'in-band'),
  /** tools/call named no tool, or one the registry does not know. */
  'unknown-tool': kind(400, INVALID_PARAMS, 'Invalid input', 'unknown-tool', 'in-band'),
  /**
   * The arguments do not fit the tool's input schema, or cannot be sent. A
   * tool error from MCP 2025-11-25 on (SEP-1303: the model can fix its call);
   * before it, a JSON-RPC error in HTTP 200.
   */
  'invalid-arguments': kind(400, INVALID_PARAMS, 'Invalid input', 'invalid-arguments', 'tool-error'),

  // JSON-RPC and MCP protocol errors.
  'parse-error': kind(400, PARSE, 'Parse error', 'invalid-request'),
  'invalid-request': kind(400, INVALID_REQUEST, 'Invalid Request', 'invalid-request'),
  /**
   * The HTTP exchange itself succeeded, so the error travels inside the SSE
   * stream like any other response (as the official SDK server does). A 404
   * would be wrong: on Streamable HTTP a 404 tells the client its session is gone.
   */
  'method-not-found': kind(200, METHOD_NOT_FOUND, 'Method not found', 'invalid-request', 'in-band'),
  /**
   * A 2026-07-28 request (per-request `_meta` envelope) for a method that revision does not have, or the
   * gateway does not serve: HTTP 404 as that revision's transport
   * requires (no session exists whose loss a 404 could mean).
   */
  'unknown-method': kind(404, METHOD_NOT_FOUND, 'Method not found', 'invalid-request'),
  /**
   * MCP 2026-07-28: the `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` or `Mcp-Param-*` headers are
   * missing, malformed, or disagree with the body (HeaderMismatch).
   */
  'header-mismatch': kind(400, HEADER_MISMATCH, 'Header mismatch', 'invalid-request'),
  /**
   * MCP 2026-07-28: a request that names that revision in its headers but whose `_meta` lacks the
   * protocol version or the client capabilities every such request carries: invalid params, HTTP 400.
   */
  'invalid-envelope': kind(400, INVALID_PARAMS, 'Invalid params', 'invalid-request'),
  /**
   * MCP 2026-07-28: a request's protocol version is one the gateway
   * does not serve statelessly; `data.supported` lists those it does.
   */
  'unsupported-protocol-version': kind(
    400,
    UNSUPPORTED_PROTOCOL_VERSION,
    'Unsupported protocol version',
    'invalid-request',
  ),
  /**
   * Write confirmation: the tool needs the user's confirmation and the client cannot be asked for it, being
   * of a revision before 2026-07-28 (confirmation is asked by MCP 2026-07-28's multi round-trip elicitation).
   */
  'confirmation-unavailable': kind(403, REFUSED, 'Confirmation unavailable', 'not-confirmed', 'in-band'),
  /**
   * MCP 2026-07-28 MissingRequiredClientCapability: a write needing
   * confirmation from a client that did not declare `elicitation`.
   */
  'missing-client-capability': kind(
    400,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    'Missing required client capability',
    'not-confirmed',
    'in-band',
  ),
  /**
   * The user declined (or cancelled) the confirmation of a write:
   * a tool error, so the model reads that the user said no.
   */
  'confirmation-declined': kind(403, REFUSED, 'Not confirmed', 'not-confirmed', 'tool-error'),
  /**
   * A retried call's `requestState` failed its check: forged, expired, already used, another agent's, or for
   * another tool or other arguments than the call carrying it. Nothing is forwarded; the client may start over.
   */
  'invalid-request-state': kind(400, INVALID_PARAMS, 'Invalid request state', 'not-confirmed', 'in-band'),
  /** Streamable HTTP clients react to the 404 by initializing again. */
  'session-not-found': kind(404, INVALID_REQUEST, 'Session not found', 'invalid-request'),
  /**
   * A resumed stream whose answer is no longer kept (or never
   * was: the client did not leave, or another instance lost it).
   */
  'stream-gone': kind(410, INVALID_REQUEST, 'Stream gone', 'invalid-request'),

  // Transport: the HTTP request itself is not one /mcp accepts.
  'method-not-allowed': kind(405, INVALID_REQUEST, 'Invalid Request', 'invalid-request'),
  'not-acceptable': kind(406, INVALID_REQUEST, 'Invalid Request', 'invalid-request'),
  'body-too-large': kind(413, INVALID_REQUEST, 'Invalid Request', 'invalid-request'),
  'unsupported-media-type': kind(415, INVALID_REQUEST, 'Invalid Request', 'invalid-request'),
  /** The client closed the connection before sending all of its body. */
  'incomplete-body': kind(400, INVALID_REQUEST, 'Invalid Request', 'invalid-request'),
  /**
   * The agent (or, all agents together, the instance) already has as many
   * request bodies arriving as the gateway holds at once: refused before
   * this body is read, with a Retry-After.
   */
  'too-many-uploads': kind(429, INVALID_REQUEST, 'Too many requests', 'invalid-request'),

  /**
   * The client left before its tools/call was answered. Nobody reads this
   * answer: 499 is the status proxies log for it (nginx's "client closed
   * request"), -32800 the code JSON-RPC tools use for a cancelled request.
   */
  'client-gone': kind(499, -32800, 'Client closed request', 'client-gone'),

  /** Anything that is not a GatewayError: its message stays in the logs. */
  internal: kind(500, INTERNAL, 'Internal error', 'internal-error'),
} as const satisfies Record<string, ErrorKind>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;
