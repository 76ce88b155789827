import { z } from 'zod';
import { describeError, type GatewayError, InvalidInputError, InvalidRequestError, ParseError } from '../errors.js';
import { opensAtMost } from '../util/json-opens.js';

/**
 * JSON-RPC 2.0 messages as MCP uses them: ids are strings or integers, params
 * are named (an object), and a request id is never null.
 */

export type JsonRpcId = string | number;
export type JsonRpcParams = Record<string, unknown>;

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: JsonRpcId;
  method: string;
  params?: JsonRpcParams;
}

export interface JsonRpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: JsonRpcParams;
}

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export interface JsonRpcSuccess {
  jsonrpc: '2.0';
  id: JsonRpcId;
  result: unknown;
}

export interface JsonRpcFailure {
  jsonrpc: '2.0';
  /** null when the request's id could not be read. */
  id: JsonRpcId | null;
  error: JsonRpcErrorObject;
}

export type JsonRpcResponse = JsonRpcSuccess | JsonRpcFailure;

/** What one POST /mcp body turned out to be. */
export type IncomingMessage =
  | { kind: 'request'; message: JsonRpcRequest }
  | { kind: 'notification'; message: JsonRpcNotification }
  /** A client's answer to a server request; the gateway never sends any. */
  | { kind: 'response'; message: JsonRpcResponse }
  /** Not acceptable; answer `error` with `id` (null when unreadable). */
  | { kind: 'invalid'; id: JsonRpcId | null; error: GatewayError };

/**
 * How deeply a message may nest objects and arrays: far beyond any real
 * tool arguments. Later steps walk arguments recursively (schema
 * validation, canonical JSON for the cache key and the audit digest,
 * serialization); a message nested thousands of levels deep would exhaust
 * their stack, so it is refused here, before any of them runs.
 */
export const MAX_MESSAGE_DEPTH = 64;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// z.int() is limited to safe integers: a larger id could not be echoed back
// unchanged, so it is refused rather than silently rounded.
const ID_RULE = 'id must be a string or an integer (at most 2^53 - 1)';
const IdSchema = z.union([z.string(), z.int({ error: ID_RULE })], { error: ID_RULE });
const ParamsSchema = z.custom<JsonRpcParams>(isPlainObject, { error: 'params must be an object' });
const Version = z.literal('2.0', { error: 'jsonrpc must be "2.0"' });
const Method = z.string({ error: 'method must be a string' });

const RequestSchema = z.object({ jsonrpc: Version, id: IdSchema, method: Method, params: ParamsSchema.optional() });
const NotificationSchema = z.object({ jsonrpc: Version, method: Method, params: ParamsSchema.optional() });
const ErrorObjectSchema = z.object({ code: z.int(), message: z.string(), data: z.unknown().optional() });
const ResponseSchema = z.union([
  z.object({ jsonrpc: Version, id: IdSchema, result: z.unknown() }),
  z.object({ jsonrpc: Version, id: IdSchema.nullable(), error: ErrorObjectSchema }),
]);

/**
 * Reads one POST /mcp body. Never throws for bad input: every refusal comes
 * back as `invalid` with the error to send, so the caller has one path.
 *
 * Batches (a JSON array) are refused for every protocol version; the reasons
 * are in docs/reference/behaviour.md ("Batches are refused").
 */
export function parseJsonRpcBody(body: string): IncomingMessage {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return { kind: 'invalid', id: null, error: new ParseError('Parse error: the body is not valid JSON') };
  }
  return classify(value, opensAtMost(body, MAX_MESSAGE_DEPTH));
}

export function classifyMessage(value: unknown): IncomingMessage {
  return classify(value, false);
}

/** `shallow`: the message is known to nest no deeper than MAX_MESSAGE_DEPTH, so it is not walked to check. */
function classify(value: unknown, shallow: boolean): IncomingMessage {
  if (Array.isArray(value)) {
    return invalid(null, 'JSON-RPC batches are not supported; send one message per request');
  }
  if (!isPlainObject(value)) return invalid(null, 'a JSON-RPC message must be an object');
  const id = readableId(value);
  if (!shallow && nestsDeeperThan(value, MAX_MESSAGE_DEPTH))
    return invalid(id, `the message nests deeper than ${MAX_MESSAGE_DEPTH} levels`);
  if ('method' in value) {
    if (!('id' in value)) return wellFormed(value, undefined) ?? parsed('notification', NotificationSchema, value, id);
    if (value.id === null) return invalid(null, 'id must be a string or an integer; null is not a request id');
    return (id === null ? null : wellFormed(value, id)) ?? parsed('request', RequestSchema, value, id);
  }
  if ('result' in value || 'error' in value) {
    if ('result' in value && 'error' in value)
      return invalid(id, 'a response carries either result or error, not both');
    return parsed('response', ResponseSchema, value, id);
  }
  return invalid(id, 'a JSON-RPC message needs a method (request or notification) or a result or error (response)');
}

function parsed<K extends 'request' | 'notification' | 'response'>(
  kind: K,
  schema: z.ZodType,
  value: Record<string, unknown>,
  id: JsonRpcId | null,
): IncomingMessage {
  const result = schema.safeParse(value);
  if (!result.success) return invalid(id, firstIssue(result.error));
  return { kind, message: result.data } as IncomingMessage;
}

/**
 * A request (`id` given) or notification whose every field is valid, as the
 * schema would return it (its fields in the schema's order, `params` only
 * when present, other members dropped), built without running the schema:
 * most messages are this. Anything else returns undefined, and the schema
 * judges it (and words the refusal).
 */
function wellFormed(value: Record<string, unknown>, id: JsonRpcId | undefined): IncomingMessage | undefined {
  const { method } = value;
  if (value.jsonrpc !== '2.0' || typeof method !== 'string') return undefined;
  const hasParams = 'params' in value;
  const params = value.params;
  if (hasParams && params !== undefined && !isPlainObject(params)) return undefined;
  if (id === undefined) {
    const message: JsonRpcNotification = hasParams
      ? { jsonrpc: '2.0', method, params: params as JsonRpcParams }
      : { jsonrpc: '2.0', method };
    return { kind: 'notification', message };
  }
  const message: JsonRpcRequest = hasParams
    ? { jsonrpc: '2.0', id, method, params: params as JsonRpcParams }
    : { jsonrpc: '2.0', id, method };
  return { kind: 'request', message };
}

/**
 * Iterative, so the check itself cannot run out of stack. The message itself
 * is level 1. Only objects and arrays are kept to visit, each beside its depth.
 */
function nestsDeeperThan(value: object, limit: number): boolean {
  const items: object[] = [value];
  const depths: number[] = [1];
  while (items.length > 0) {
    const item = items.pop()!;
    const depth = depths.pop()!;
    if (depth > limit) return true;
    if (Array.isArray(item)) {
      for (const child of item)
        if (typeof child === 'object' && child !== null) items.push(child), depths.push(depth + 1);
    } else {
      for (const child of Object.values(item))
        if (typeof child === 'object' && child !== null) items.push(child), depths.push(depth + 1);
    }
  }
  return false;
}

/** The id to echo in an error: only one that is itself valid (a string, or a safe integer as `z.int()` reads it). */
function readableId(value: Record<string, unknown>): JsonRpcId | null {
  const raw = value.id;
  if (typeof raw === 'string' || Number.isSafeInteger(raw)) return raw as JsonRpcId;
  const id = IdSchema.safeParse(raw);
  return id.success ? id.data : null;
}

function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  return issue?.message ?? 'invalid JSON-RPC message';
}

function invalid(id: JsonRpcId | null, reason: string): IncomingMessage {
  return { kind: 'invalid', id, error: new InvalidRequestError(`Invalid Request: ${reason}`) };
}

export function jsonRpcResult(id: JsonRpcId, result: unknown): JsonRpcSuccess {
  return { jsonrpc: '2.0', id, result };
}

export function jsonRpcError(id: JsonRpcId | null, error: JsonRpcErrorObject): JsonRpcFailure {
  return { jsonrpc: '2.0', id, error };
}

/**
 * Details for the caller: the fields of an invalid input, or an error's own
 * `data` property (e.g. the downstream status of a DownstreamError).
 */
function dataOf(error: unknown): unknown {
  if (error instanceof InvalidInputError) return error.fields.length > 0 ? { fields: error.fields } : undefined;
  return typeof error === 'object' && error !== null && 'data' in error ? error.data : undefined;
}

/**
 * The JSON-RPC error response for anything thrown, through describeError:
 * an unexpected error gets -32603 and a generic message, never its own.
 */
export function jsonRpcErrorFrom(id: JsonRpcId | null, error: unknown): JsonRpcFailure {
  const described = describeError(error);
  const data = described.expected ? dataOf(error) : undefined;
  return jsonRpcError(id, {
    code: described.jsonRpcCode,
    message: described.detail,
    ...(data === undefined ? {} : { data }),
  });
}
