// How the MCP service's answers are shaped: successes, failures as the catalogue and the delivery say,
// Bearer challenges, and answers sent on a stream already started.
import {
  describeError,
  InsufficientScopeError,
  InvalidInputError,
  UnauthorizedError,
  type ErrorDescription,
} from '../errors.js';
import type { ToolCallFailure } from '../pipeline/tool-call-report.js';
import {
  jsonRpcErrorFrom,
  jsonRpcResult,
  type IncomingMessage,
  type JsonRpcId,
  type JsonRpcResponse,
} from '../protocol/jsonrpc.js';
import { isAtLeast, type ProtocolVersion } from '../protocol/protocol-version.js';
import { buildToolErrorResult } from '../protocol/tool-result.js';
import type { BearerChallenge, McpAnswer } from './mcp-messages.js';
import type { McpServiceOptions } from './mcp-service-options.js';

/**
 * Failures as answers, delivered as `errorDelivery` says: with the catalogue's delivery (`mcp`), or each with its
 * HTTP status. Errors outside the catalogue are told to `onUnexpectedError`; their message never reaches the caller.
 */
export class FailureAnswers {
  readonly #options: Pick<McpServiceOptions, 'errorDelivery' | 'onUnexpectedError'>;

  constructor(options: Pick<McpServiceOptions, 'errorDelivery' | 'onUnexpectedError'>) {
    this.#options = options;
  }

  /**
   * A failed tools/call: a tool error the model reads, when the catalogue says so and the client's revision allows it.
   */
  ofCall(id: JsonRpcId, report: ToolCallFailure, version: ProtocolVersion): McpAnswer {
    const failure = describeError(report.error);
    if (this.#mcpDelivery && isToolError(failure, version)) {
      const result = buildToolErrorResult(toolErrorText(report), {
        code: failure.jsonRpcCode,
        kind: failure.code,
        httpStatus: failure.httpStatus,
        ...detailsOf(report.error),
      });
      return { kind: 'answer', message: jsonRpcResult(id, result), status: 200, failure };
    }
    return this.of(id, report.error);
  }

  /** Any other refusal: a JSON-RPC error, in HTTP 200 or with its own status as the delivery says. */
  of(id: JsonRpcId | null, error: unknown): McpAnswer {
    const failure = describeError(error);
    if (!failure.expected) this.#options.onUnexpectedError?.(error);
    const status = this.#mcpDelivery && failure.delivery !== 'http' ? 200 : failure.httpStatus;
    const challenge = bearerChallenge(error);
    return { kind: 'answer', message: jsonRpcErrorFrom(id, error), status, failure, ...(challenge && { challenge }) };
  }

  get #mcpDelivery(): boolean {
    return (this.#options.errorDelivery ?? 'mcp') === 'mcp';
  }
}

/**
 * The challenge of a refused credential: `invalid_token` once one was presented (RFC 6750 3.1), the scopes to ask for
 * when some are missing.
 */
export function bearerChallenge(error: unknown): BearerChallenge | undefined {
  if (error instanceof InsufficientScopeError)
    return { error: 'insufficient_scope', scope: error.scopesToRequest.join(' ') };
  if (!(error instanceof UnauthorizedError)) return undefined;
  return error.reason === 'missing' ? {} : { error: 'invalid_token' };
}

/** A JSON-RPC answer, sent with status 200. */
export function answer(message: JsonRpcResponse): McpAnswer {
  return { kind: 'answer', message, status: 200 };
}

/** Invalid arguments are a tool error from 2025-11-25 on (SEP-1303); a JSON-RPC error before. */
export function isToolError(failure: ErrorDescription, version: ProtocolVersion): boolean {
  if (failure.delivery !== 'tool-error') return false;
  return failure.code !== 'invalid-arguments' || isAtLeast(version, '2025-11-25');
}

/** What the model reads: what failed, and the downstream's own words when it gave any (already filtered and capped). */
export function toolErrorText(report: ToolCallFailure): string {
  const { detail } = describeError(report.error);
  return report.downstreamAnswer ? `${detail}: ${report.downstreamAnswer}` : detail;
}

/**
 * The error's own details for programs (the downstream failure, the fields at fault); never the downstream's answer.
 */
export function detailsOf(error: unknown): Record<string, unknown> {
  if (error instanceof InvalidInputError) return { fields: error.fields };
  const data = (error as { data?: unknown }).data;
  return typeof data === 'object' && data !== null ? { ...data } : {};
}

/** The id to answer with: a refused message's id too, when it is itself valid. */
export function replyId(incoming: IncomingMessage): JsonRpcId | null {
  if (incoming.kind === 'request') return incoming.message.id;
  return incoming.kind === 'invalid' ? incoming.id : null;
}

/**
 * An answer sent after its stream started: the status line is already
 * sent, so the HTTP status it would have had travels in the error's `data`.
 */
export function streamedMessage(reply: McpAnswer): JsonRpcResponse {
  if (!reply.failure || !('error' in reply.message)) return reply.message;
  const { error } = reply.message;
  const httpStatus = reply.failure.httpStatus;
  const data = typeof error.data === 'object' && error.data !== null ? { ...error.data, httpStatus } : { httpStatus };
  return { ...reply.message, error: { ...error, data } };
}

/**
 * An answer refusing a request before it reached the service: the transport (method, media type, size) or a request
 * guard (origin, headers).
 */
export function transportFailure(error: unknown): McpAnswer {
  const failure = describeError(error);
  const challenge = bearerChallenge(error);
  return {
    kind: 'answer',
    message: jsonRpcErrorFrom(null, error),
    status: failure.httpStatus,
    failure,
    ...(challenge && { challenge }),
  };
}
