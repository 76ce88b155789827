import { findTargetHandler } from 'hono/utils/handler';
import { assembleInputs, type InputCandidate } from '../schema/assemble-inputs.js';
import { markParamHeaders } from '../param-headers.js';
import { toRoutePattern } from '../schema/route-pattern.js';
import type { ToolDefinition } from '../tool-definition.js';
import type { AgentToolMetadata } from './agent-tool-options.js';
import type { Misconfiguration } from './misconfiguration.js';
import { resolveVerb } from './resolve-verb.js';
import { agentToolOf } from './with-agent-tool.js';

/** The part of a Hono `app.routes` entry the walk reads. */
export interface RouteEntry {
  method: string;
  path: string;
  handler: unknown;
}

export interface CollectedTools {
  tools: ToolDefinition[];
  problems: Misconfiguration[];
}

/** Where one `withAgentTool` instance appears: one entry per verb it is registered for. */
interface Placement {
  metadata: AgentToolMetadata;
  methods: Set<string>;
  paths: Set<string>;
}

/**
 * Turns the routing table into endpoint tools. Hono lists every handler of a
 * route as its own entry, with group prefixes already in `path`; handlers of
 * sub-apps with their own `onError` are wrapped, so each is unwrapped first.
 */
export function collectEndpointTools(routes: readonly RouteEntry[]): CollectedTools {
  const tools: ToolDefinition[] = [];
  const problems: Misconfiguration[] = [];
  for (const placement of placementsOf(routes)) {
    const result = toToolDefinition(placement);
    if ('problem' in result) problems.push(result);
    else tools.push(result);
  }
  return { tools, problems };
}

/** The routes marked with `withAgentTool`, as `name (VERB /path)`, in routing-table order. */
export function markedRoutes(routes: readonly RouteEntry[]): string[] {
  return placementsOf(routes).map(
    ({ metadata, methods, paths }) => `${metadata.name} (${[...methods].join(',')} ${[...paths].join(', ')})`,
  );
}

function placementsOf(routes: readonly RouteEntry[]): Placement[] {
  const placements = new Map<AgentToolMetadata, Placement>();
  for (const { method, path, handler } of routes) {
    const metadata = agentToolOf(findTargetHandler(handler as Parameters<typeof findTargetHandler>[0]));
    if (!metadata) continue;
    const placement = placements.get(metadata) ?? { metadata, methods: new Set(), paths: new Set() };
    placement.methods.add(method);
    placement.paths.add(path);
    placements.set(metadata, placement);
  }
  return [...placements.values()];
}

function toToolDefinition({ metadata, methods, paths }: Placement): ToolDefinition | Misconfiguration {
  const tool = metadata.name;
  const route = `${[...methods].join(',')} ${[...paths].join(', ')}`;
  const path = [...paths][0] as string;
  if (paths.size > 1) {
    return {
      tool,
      route,
      problem: 'one withAgentTool marks more than one route',
      fix: 'call withAgentTool once per endpoint',
    };
  }
  const pattern = toRoutePattern(path);
  if (!pattern.ok) {
    return {
      tool,
      route,
      problem: 'the route has an unnamed wildcard "*", which an agent cannot fill',
      fix: 'name the segment, e.g. ":path{.+}" instead of "*"',
    };
  }
  const verb = resolveVerb(methods, metadata.httpMethod);
  if (!verb.ok) return { tool, route, problem: verb.problem, fix: verb.fix };
  const strayRouteInputs = [...metadata.routeInputs.keys()].filter((name) => !pattern.routeParams.includes(name));
  if (strayRouteInputs.length > 0) {
    return {
      tool,
      route,
      problem: `input.route names ${strayRouteInputs.join(', ')}, which the route does not have`,
      fix: `use the route's parameter names (${pattern.routeParams.join(', ') || 'none'})`,
    };
  }
  const routeCandidates: InputCandidate[] = pattern.routeParams.map((name) => ({
    name,
    source: 'route',
    property: metadata.routeInputs.get(name) ?? { type: 'string', description: null },
    required: true,
  }));
  const inputs = assembleInputs([...routeCandidates, ...metadata.queryAndBodyInputs]);
  const marked = markParamHeaders(inputs.inputSchema, metadata.paramHeaders);
  if (marked.problem !== null)
    return {
      tool,
      route,
      problem: marked.problem,
      fix: 'mark only string, integer or boolean inputs, with distinct HTTP token header names',
    };
  return {
    name: metadata.name,
    description: metadata.description,
    allowWrite: metadata.allowWrite,
    maxResponseTokens: metadata.maxResponseTokens,
    category: metadata.category,
    requiredScopes: [...metadata.requiredScopes],
    httpMethod: verb.verb,
    routePattern: pattern.routePattern,
    parameterSources: inputs.parameterSources,
    inputSchema: marked.inputSchema,
    ...(metadata.cache ? { cache: metadata.cache } : {}),
    ...(metadata.confirm ? { confirm: true as const } : {}),
  };
}
