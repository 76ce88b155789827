import { isAtLeast, type ProtocolVersion } from './protocol-version.js';

export interface ToolCallResult {
  content: [{ type: 'text'; text: string }];
  structuredContent?: Record<string, unknown>;
}

/**
 * The tools/call result for the (capped) JSON text returned to the agent
 * (contract 4.3). From 2025-06-18 on, the same data also goes as
 * `structuredContent`, which MCP requires to be an object: any other JSON
 * value is wrapped as `{"result": value}`. Pass `parsed` when `text` is
 * exactly `JSON.stringify(parsed.value)`, to skip parsing it again.
 */
export function buildToolCallResult(text: string, version: ProtocolVersion, parsed?: { value: unknown }): ToolCallResult {
  const result: ToolCallResult = { content: [{ type: 'text', text }] };
  if (!isAtLeast(version, '2025-06-18')) return result;
  // The caller may already hold the value `text` was serialized from: no need to parse it back.
  const value: unknown = parsed === undefined ? JSON.parse(text) : parsed.value;
  const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
  result.structuredContent = isObject ? (value as Record<string, unknown>) : { result: value };
  return result;
}
