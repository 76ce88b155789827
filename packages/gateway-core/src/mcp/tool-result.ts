import { isAtLeast, type ProtocolVersion } from './protocol-version.js';

export interface ToolCallResult {
  content: [{ type: 'text'; text: string }];
  structuredContent?: Record<string, unknown>;
}

/**
 * The tools/call result for the (capped) JSON text returned to the agent
 * (spec 4.3). From 2025-06-18 on, the same data also goes as
 * `structuredContent`, which MCP requires to be an object: any other JSON
 * value is wrapped as `{"result": value}`.
 */
export function buildToolCallResult(text: string, version: ProtocolVersion): ToolCallResult {
  const result: ToolCallResult = { content: [{ type: 'text', text }] };
  if (!isAtLeast(version, '2025-06-18')) return result;
  const value: unknown = JSON.parse(text);
  const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
  result.structuredContent = isObject ? (value as Record<string, unknown>) : { result: value };
  return result;
}
