import { isAtLeast, type ProtocolVersion } from './protocol-version.js';

export interface ToolCallResult {
  content: [{ type: 'text'; text: string }];
  structuredContent?: Record<string, unknown>;
  isError?: true;
  _meta?: Record<string, unknown>;
}

/** The `_meta` key of a tool error's machine-readable part. */
export const TOOL_ERROR_META_KEY = 'io.tollgate/error';

/** What a program reads from a tool error: the contract 7 code it would have had, and why. */
export interface ToolErrorMeta {
  code: number;
  kind: string;
  httpStatus: number;
  [detail: string]: unknown;
}

/**
 * A tool that failed, as MCP reports it: a result with `isError: true`
 * whose text the model reads (and can act on), and the error's code in
 * `_meta` so a program can still branch on it. Not `structuredContent`: a
 * tool's output schema describes its answers, not its errors.
 */
export function buildToolErrorResult(text: string, meta: ToolErrorMeta): ToolCallResult {
  return { content: [{ type: 'text', text }], isError: true, _meta: { [TOOL_ERROR_META_KEY]: meta } };
}

/**
 * The tools/call result for the (capped) JSON text returned to the agent
 * (contract 4.3). From 2025-06-18 on, the same data also goes as
 * `structuredContent`, which MCP requires to be an object: any other JSON
 * value is wrapped as `{"result": value}`. Pass `parsed` when `text` is
 * exactly `JSON.stringify(parsed.value)`, to skip parsing it again, or null
 * to send the text alone (an answer too large to parse again on the event
 * loop; MCP makes structuredContent optional when no outputSchema is declared).
 */
export function buildToolCallResult(
  text: string,
  version: ProtocolVersion,
  parsed?: { value: unknown } | null,
): ToolCallResult {
  const result: ToolCallResult = { content: [{ type: 'text', text }] };
  if (!isAtLeast(version, '2025-06-18') || parsed === null) return result;
  // The caller may already hold the value `text` was serialized from: no need to parse it back.
  const value: unknown = parsed === undefined ? JSON.parse(text) : parsed.value;
  const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
  const structured = isObject ? (value as Record<string, unknown>) : { result: value };
  result.structuredContent = structured;
  // Not enumerable: JSON, Object.keys and equality checks see the result as it always was.
  if (parsed !== undefined)
    Object.defineProperty(result, STRUCTURED_JSON, { value: isObject ? text : `{"result":${text}}` });
  return result;
}

/**
 * As `buildToolCallResult(text, version)`, for a `text` that is
 * `JSON.stringify` output (a cached answer's stored text) whose value nobody
 * may need: structuredContent is parsed from it only when something reads it
 * (JSON.stringify of the message, a test), and the message's SSE frame is
 * written around the text itself (see `sseMessage`), so a cache hit is
 * served without parsing its answer. The result reads as the eager one does:
 * same keys, in the same order, same values.
 */
export function buildToolCallResultFromJson(text: string, version: ProtocolVersion): ToolCallResult {
  const result: ToolCallResult = { content: [{ type: 'text', text }] };
  if (!isAtLeast(version, '2025-06-18')) return result;
  // JSON.stringify writes an object, and only an object, starting with '{'.
  const json = text.charCodeAt(0) === 0x7b ? text : `{"result":${text}}`;
  Object.defineProperty(result, 'structuredContent', {
    get(this: ToolCallResult) {
      const value = JSON.parse(json) as Record<string, unknown>;
      Object.defineProperty(this, 'structuredContent', { value, writable: true, enumerable: true, configurable: true });
      return value;
    },
    set(this: ToolCallResult, value: Record<string, unknown>) {
      Object.defineProperty(this, 'structuredContent', { value, writable: true, enumerable: true, configurable: true });
    },
    enumerable: true,
    configurable: true,
  });
  Object.defineProperty(result, STRUCTURED_JSON, { value: json });
  return result;
}

/**
 * Whether `result.structuredContent` is still the text `knownStructuredJson`
 * gives, without parsing it: a value built by `buildToolCallResultFromJson`
 * that nobody has read yet, or any object.
 */
export function structuredContentIsObject(result: object): boolean {
  const descriptor = Object.getOwnPropertyDescriptor(result, 'structuredContent');
  if (descriptor === undefined) return false;
  if (descriptor.get !== undefined) return true;
  return typeof descriptor.value === 'object' && descriptor.value !== null;
}

/**
 * Where a result built from a value whose text the caller gave (`parsed`)
 * keeps the JSON text of its structuredContent: the answer is serialized
 * once, for the content text, and the message holding the result reuses that
 * text (see `sseMessage`).
 */
const STRUCTURED_JSON = Symbol('structuredContent JSON');

/**
 * A shallow copy of a result, as a spread makes it (own enumerable keys, in
 * their order), that keeps what `sseMessage` reuses: the JSON text of its
 * structuredContent, and a cached answer's structuredContent unparsed (a
 * spread would read it, and drop the text).
 */
export function copyResult<T extends object>(result: T): T {
  const copy: Record<PropertyKey, unknown> = {};
  for (const key of Object.keys(result)) {
    const lazy = key === 'structuredContent' ? Object.getOwnPropertyDescriptor(result, key) : undefined;
    if (lazy?.get !== undefined) Object.defineProperty(copy, key, lazy);
    else copy[key] = (result as Record<string, unknown>)[key];
  }
  const json = knownStructuredJson(result);
  if (json !== undefined) Object.defineProperty(copy, STRUCTURED_JSON, { value: json });
  return copy as T;
}

/** `JSON.stringify(result.structuredContent)` when `buildToolCallResult` knew it already. */
export function knownStructuredJson(result: object): string | undefined {
  return (result as { [STRUCTURED_JSON]?: string })[STRUCTURED_JSON];
}
