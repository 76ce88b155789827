import { isAtLeast, type ProtocolVersion } from '../protocol/protocol-version.js';
import { isMutating } from './access.js';
import type { RegisteredTool, ToolInputSchema } from './registry.js';

export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint?: boolean;
}

/** One entry of a tools/list result. */
export interface McpTool {
  name: string;
  description: string;
  inputSchema: ToolInputSchema;
  annotations?: ToolAnnotations;
}

/**
 * A tools/list result. Named rather than written inline in signatures: API
 * Extractor cannot place a finding about a type inside an inline literal and
 * reports it with the built chunk's name and line, which every change moves.
 */
export interface ToolsListResult {
  tools: McpTool[];
}

/**
 * A tool as MCP clients see it. Annotations exist from protocol 2025-03-26
 * on. A tool is read-only when it cannot change state through the gateway;
 * MCP assumes a non-read-only tool is destructive unless told otherwise, so
 * the hint is always spelt out: only DELETE is destructive.
 */
export function toMcpTool(tool: RegisteredTool, version: ProtocolVersion): McpTool {
  const { name, description, httpMethod, allowWrite } = tool.definition;
  const listed: McpTool = { name, description, inputSchema: tool.inputSchema };
  if (!isAtLeast(version, '2025-03-26')) return listed;
  const readOnly = !allowWrite || !isMutating(httpMethod);
  listed.annotations = readOnly
    ? { readOnlyHint: true }
    : { readOnlyHint: false, destructiveHint: httpMethod === 'DELETE' };
  return listed;
}

export function toolsListResult(tools: readonly RegisteredTool[], version: ProtocolVersion): ToolsListResult {
  return { tools: tools.map((tool) => toMcpTool(tool, version)) };
}
