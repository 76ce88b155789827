import type { Misconfiguration } from '../endpoint/misconfiguration.js';
import type { ToolDefinition } from '../tool-definition.js';

export interface MergedTools {
  tools: ToolDefinition[];
  problems: Misconfiguration[];
}

/**
 * Annotated and endpoint tools as one list, sorted by name. Tools are keyed
 * on verb plus route; on a clash the annotated tool wins and the endpoint
 * tool is dropped (contract 4.5 rule 2). Two tools left with one name would be
 * indistinguishable to the agent, so that is reported instead.
 */
export function mergeTools(annotated: readonly ToolDefinition[], endpoint: readonly ToolDefinition[]): MergedTools {
  const byRoute = new Map<string, ToolDefinition>();
  for (const tool of [...annotated, ...endpoint]) {
    const key = routeKey(tool);
    if (!byRoute.has(key)) byRoute.set(key, tool);
  }
  const tools = [...byRoute.values()].map(toWireShape).sort(byName);
  return { tools, problems: duplicateNames(tools) };
}

// `{id}` and `{orderId}` in the same position are the same route.
function routeKey({ httpMethod, routePattern }: ToolDefinition): string {
  return `${httpMethod} ${routePattern.replace(/\{[^}]*\}/g, '{}')}`;
}

/** Exactly the contract 2.5 fields, whatever else the source object carried. */
function toWireShape(tool: ToolDefinition): ToolDefinition {
  return {
    name: tool.name,
    description: tool.description,
    allowWrite: tool.allowWrite,
    maxResponseTokens: tool.maxResponseTokens,
    category: tool.category,
    requiredScopes: [...tool.requiredScopes],
    httpMethod: tool.httpMethod,
    routePattern: tool.routePattern,
    parameterSources: tool.parameterSources,
    inputSchema: tool.inputSchema,
    ...(tool.cache ? { cache: tool.cache } : {}),
    ...(tool.confirm ? { confirm: true as const } : {}),
  };
}

// Code-unit order, not locale order: the same bytes on every machine.
function byName(a: ToolDefinition, b: ToolDefinition): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

function duplicateNames(sorted: readonly ToolDefinition[]): Misconfiguration[] {
  const problems: Misconfiguration[] = [];
  for (let i = 1; i < sorted.length; i++) {
    const [previous, current] = [sorted[i - 1] as ToolDefinition, sorted[i] as ToolDefinition];
    if (previous.name !== current.name) continue;
    problems.push({
      tool: current.name,
      route: `${previous.httpMethod} ${previous.routePattern} and ${current.httpMethod} ${current.routePattern}`,
      problem: 'two tools share this name',
      fix: 'give each tool a unique name',
    });
  }
  return problems;
}
