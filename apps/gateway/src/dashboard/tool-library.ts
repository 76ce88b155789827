import type { ToolDefinition } from '@tollgate/gateway-core';
import { isMutating } from '@tollgate/gateway-core/internal';

export interface ToolGroup {
  /** null = the tools without a category, always listed last. */
  category: string | null;
  tools: ToolDefinition[];
}

/** What the filter box matches: name, description, category, verb, route, scopes and downstream. */
export function toolSearchText(tool: ToolDefinition): string {
  return [
    tool.name,
    tool.description,
    tool.category ?? '',
    tool.httpMethod,
    tool.routePattern,
    ...tool.requiredScopes,
    tool.downstream ?? '',
  ]
    .join(' ')
    .toLowerCase()
    .trimEnd();
}

export function matchesToolFilter(tool: ToolDefinition, filter: string): boolean {
  const needle = filter.trim().toLowerCase();
  return needle === '' || toolSearchText(tool).includes(needle);
}

/** Contract 2.5/4.6: tools grouped by category, categories in name order, uncategorised last; tools by name. */
export function groupToolsByCategory(tools: readonly ToolDefinition[]): ToolGroup[] {
  const groups = new Map<string | null, ToolDefinition[]>();
  for (const tool of tools) {
    const category = tool.category?.trim() ? tool.category.trim() : null;
    groups.set(category, [...(groups.get(category) ?? []), tool]);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => (a === null ? 1 : b === null ? -1 : a.localeCompare(b)))
    .map(([category, members]) => ({ category, tools: members.sort((x, y) => x.name.localeCompare(y.name)) }));
}

/** The names the agent form and the audit filter offer. */
export function toolNames(tools: readonly ToolDefinition[]): string[] {
  return tools.map((tool) => tool.name);
}

/**
 * What an agent's allowlist may name on the form: every tool, and with
 * several downstreams each whole downstream (`orders.*`), which also covers
 * its tools loaded later.
 */
export function allowlistChoices(
  tools: readonly ToolDefinition[],
  downstreams: ReadonlyArray<{ name: string }>,
): string[] {
  const wholeDownstreams = downstreams.length > 1 ? downstreams.map((downstream) => `${downstream.name}.*`) : [];
  return [...wholeDownstreams, ...toolNames(tools)];
}

export interface ToolParameter {
  name: string;
  type: string;
  source: string;
  required: boolean;
  description: string | null;
}

/** The input parameters of a tool as a flat list, in schema order. */
export function toolParameters(tool: ToolDefinition): ToolParameter[] {
  const { properties, required } = tool.inputSchema;
  return Object.entries(properties).map(([name, property]) => ({
    name,
    // A property may be only a `$ref` (to `#/$defs/…`): its reference is what it is.
    type:
      property.type === undefined
        ? String(property.$ref)
        : Array.isArray(property.type)
          ? property.type.join(' | ')
          : property.type,
    source: tool.parameterSources[name] ?? '',
    required: required.includes(name),
    description: property.description ?? null,
  }));
}

/**
 * What the write guard does with a tool: a read, a write its definition
 * allows, or a write it does not allow (`allowWrite` false on POST, PUT,
 * PATCH, DELETE), which the gateway refuses for every agent and never lists.
 */
export type WriteGuard = 'read-only' | 'writes' | 'write-blocked';

export function writeGuardOf(tool: Pick<ToolDefinition, 'httpMethod' | 'allowWrite'>): WriteGuard {
  if (!isMutating(tool.httpMethod)) return 'read-only';
  return tool.allowWrite ? 'writes' : 'write-blocked';
}
