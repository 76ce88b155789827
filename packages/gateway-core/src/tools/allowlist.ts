import type { ToolDefinition } from './definition.js';

/**
 * An allowlist entry names a tool, or every tool of one downstream:
 * `orders.*`, or `orders` alone. Entries only ever add, so an entry that is
 * both a tool's name and a downstream's allows both; `orders.*` can only mean
 * the downstream (`*` is in no tool name). A tool the gateway did not load
 * from a named downstream (`downstream` unset) is matched by name only.
 */
export function allowlistAllows(
  allowlist: readonly string[],
  tool: Pick<ToolDefinition, 'name' | 'downstream'>,
): boolean {
  if (allowlist.includes(tool.name)) return true;
  const downstream = tool.downstream;
  return downstream !== undefined && (allowlist.includes(downstream) || allowlist.includes(`${downstream}.*`));
}
