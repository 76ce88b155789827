import { TOOL_NAME_PATTERN, type RegisteredTool } from '@tollgate/gateway-core';

/**
 * Joins a downstream's prefix to its tool names: `orders` + `get_order` is
 * `orders_get_order`. `_` rather than `.` or `/` (which SEP-986 also allows):
 * several model APIs accept only `[A-Za-z0-9_-]` in a function name, and
 * clients that pass MCP tool names through unchanged then fail on every
 * prompt (seen with `.` in github/copilot-cli#1879). Routing never parses a
 * name: each tool carries its downstream, so a `_` inside names is no ambiguity.
 */
export const TOOL_PREFIX_SEPARATOR = '_';

/** Where a tool comes from: the downstream's configured name and prefix ('' = none). */
export interface ToolSource {
  name: string;
  prefix: string;
  /** Its tools are imported from an OpenAPI document. */
  readsOpenApi?: boolean;
}

export function publicToolName(source: ToolSource, declared: string): string {
  return source.prefix === '' ? declared : `${source.prefix}${TOOL_PREFIX_SEPARATOR}${declared}`;
}

export interface NamedTools {
  tools: RegisteredTool[];
  /** One line per tool whose prefixed name is not a valid tool name (too long). */
  problems: string[];
}

/**
 * A downstream's registered tools under the names agents see, each carrying
 * its downstream and, when prefixed, the name the downstream declared (the
 * one it is forwarded and known by). The compiled argument check is reused.
 */
export function namedForAgents(source: ToolSource, tools: readonly RegisteredTool[]): NamedTools {
  const named: RegisteredTool[] = [];
  const problems: string[] = [];
  for (const tool of tools) {
    const declared = tool.definition.name;
    const name = publicToolName(source, declared);
    if (!TOOL_NAME_PATTERN.test(name)) {
      problems.push(
        `tool "${declared}": with the prefix "${source.prefix}" its name "${name}" is longer than 128 characters`,
      );
      continue;
    }
    const origin =
      name === declared ? { downstream: source.name } : { downstream: source.name, declaredName: declared };
    named.push({ ...tool, definition: { ...tool.definition, name, ...origin } });
  }
  return { tools: named, problems };
}
