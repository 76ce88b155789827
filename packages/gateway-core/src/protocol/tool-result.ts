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
export function buildToolCallResult(text: string, version: ProtocolVersion, parsed?: { value: unknown } | null): ToolCallResult {
  const result: ToolCallResult = { content: [{ type: 'text', text }] };
  if (!isAtLeast(version, '2025-06-18') || parsed === null) return result;
  // The caller may already hold the value `text` was serialized from: no need to parse it back.
  const value: unknown = parsed === undefined ? JSON.parse(text) : parsed.value;
  const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
  const structured = isObject ? (value as Record<string, unknown>) : { result: value };
  result.structuredContent = structured;
  // Not enumerable: JSON, Object.keys and equality checks see the result as it always was.
  if (parsed !== undefined) Object.defineProperty(result, STRUCTURED_JSON, { value: isObject ? text : `{"result":${text}}` });
  return result;
}

/**
 * Where a result built from a value whose text the caller gave (`parsed`)
 * keeps the JSON text of its structuredContent: the answer is serialized
 * once, for the content text, and the message holding the result reuses that
 * text (see `sseMessage`).
 */
const STRUCTURED_JSON = Symbol('structuredContent JSON');

/** `JSON.stringify(result.structuredContent)` when `buildToolCallResult` knew it already. */
export function knownStructuredJson(result: object): string | undefined {
  return (result as { [STRUCTURED_JSON]?: string })[STRUCTURED_JSON];
}
