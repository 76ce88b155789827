import { z } from 'zod';

/**
 * The gateway's reading of one tool definition served at `GET /gw/schema`
 * (contract 2.5). Defined here, not imported from the host kit: the gateway talks
 * to any downstream that serves this JSON, whatever produced it.
 */

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export const PARAMETER_SOURCES = ['route', 'query', 'body'] as const;
export type ParameterSource = (typeof PARAMETER_SOURCES)[number];

export const DEFAULT_MAX_RESPONSE_TOKENS = 2000;

/** MCP's tool-name rule; names also appear in logs and metrics labels. */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/;

/** `{name}` placeholders in a route pattern. */
export const ROUTE_PARAMETER = /\{([^{}/]+)\}/g;

// RFC 3986 path characters plus the braces of placeholders. Rules out `?`,
// `#`, spaces and backslashes, which would change what the URL means.
const ROUTE_PATTERN_CHARS = /^\/[A-Za-z0-9\-._~!$&'()*+,;=:@%/{}]*$/;

const InputPropertySchema = z.looseObject({
  type: z.union([z.string(), z.array(z.string())]),
  description: z.string().nullable().optional(),
});

const InputSchemaSchema = z.looseObject({
  type: z.literal('object'),
  properties: z.record(z.string(), InputPropertySchema),
  required: z.array(z.string()).default([]),
});

const ToolDefinitionObject = z.object({
  name: z.string().regex(TOOL_NAME_PATTERN, 'must be 1-128 characters of A-Z, a-z, 0-9, _, . or -'),
  description: z.string().trim().min(1, 'must not be empty'),
  allowWrite: z.boolean().default(false),
  maxResponseTokens: z.int().positive().default(DEFAULT_MAX_RESPONSE_TOKENS),
  category: z.string().nullable().default(null),
  requiredScopes: z
    .array(z.string().min(1))
    .nullable()
    .default([])
    .transform((scopes) => scopes ?? []),
  httpMethod: z.enum(HTTP_METHODS, { error: `must be one of ${HTTP_METHODS.join(', ')}` }),
  routePattern: z.string().regex(ROUTE_PATTERN_CHARS, 'must be an absolute path of URL path characters'),
  parameterSources: z.record(z.string(), z.enum(PARAMETER_SOURCES, { error: 'must be route, query or body' })),
  inputSchema: InputSchemaSchema,
});

export const ToolDefinitionSchema = ToolDefinitionObject.superRefine(checkInputsAgree);

export type ToolDefinition = z.output<typeof ToolDefinitionSchema>;
export type InputSchema = ToolDefinition['inputSchema'];

export function routeParameters(routePattern: string): string[] {
  return [...routePattern.matchAll(ROUTE_PARAMETER)].map((match) => match[1] as string);
}

/**
 * The parts that must agree for a call to be forwardable: every input has a
 * source, every source is an input, the route's placeholders are exactly the
 * route-sourced inputs, and route inputs are required (a path cannot have a
 * hole).
 */
function checkInputsAgree(tool: z.output<typeof ToolDefinitionObject>, context: z.RefinementCtx): void {
  const properties = Object.keys(tool.inputSchema.properties);
  const issue = (path: (string | number)[], message: string) => context.addIssue({ code: 'custom', path, message });
  for (const name of properties) {
    if (!(name in tool.parameterSources)) issue(['parameterSources'], `input "${name}" has no source`);
  }
  for (const name of Object.keys(tool.parameterSources)) {
    if (!properties.includes(name)) issue(['parameterSources', name], `"${name}" is not an input of inputSchema`);
  }
  for (const name of tool.inputSchema.required) {
    if (!properties.includes(name)) issue(['inputSchema', 'required'], `"${name}" is required but not in properties`);
  }
  const placeholders = routeParameters(tool.routePattern);
  for (const name of placeholders) {
    if (tool.parameterSources[name] !== 'route') issue(['routePattern'], `placeholder {${name}} is not a route-sourced input`);
    if (!tool.inputSchema.required.includes(name)) issue(['inputSchema', 'required'], `route input "${name}" must be required`);
  }
  for (const [name, source] of Object.entries(tool.parameterSources)) {
    if (source === 'route' && !placeholders.includes(name)) issue(['parameterSources', name], `route input "${name}" has no {${name}} in routePattern`);
  }
  if (tool.routePattern.split('/').some((segment) => segment === '.' || segment === '..')) {
    issue(['routePattern'], 'must not contain . or .. segments');
  }
}

/** One entry of /gw/schema that cannot be used, and why. */
export interface ToolDefinitionProblem {
  index: number;
  /** The entry's name when it has a readable one. */
  name: string | null;
  issues: { path: string; message: string }[];
}

export interface ParsedToolDefinitions {
  tools: ToolDefinition[];
  problems: ToolDefinitionProblem[];
}

/**
 * Reads the JSON array served at /gw/schema. A bad entry does not take the
 * good ones down: it is left out and described in `problems`, so the gateway
 * can log every one of them at once and serve the rest. A second tool with an
 * already used name is a problem too: the first one wins.
 */
export function parseToolDefinitions(json: unknown): ParsedToolDefinitions {
  if (!Array.isArray(json)) {
    return { tools: [], problems: [{ index: -1, name: null, issues: [{ path: '', message: 'the schema must be a JSON array of tool definitions' }] }] };
  }
  const tools: ToolDefinition[] = [];
  const problems: ToolDefinitionProblem[] = [];
  const seen = new Set<string>();
  json.forEach((entry, index) => {
    const name = readableName(entry);
    const result = ToolDefinitionSchema.safeParse(entry);
    if (!result.success) {
      const issues = result.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
      problems.push({ index, name, issues });
    } else if (seen.has(result.data.name)) {
      problems.push({ index, name, issues: [{ path: 'name', message: 'another tool already has this name' }] });
    } else {
      seen.add(result.data.name);
      tools.push(result.data);
    }
  });
  return { tools, problems };
}

function readableName(entry: unknown): string | null {
  if (typeof entry !== 'object' || entry === null || !('name' in entry)) return null;
  return typeof entry.name === 'string' ? entry.name : null;
}

/** One line per problem, e.g. for a startup log. */
export function describeToolProblem(problem: ToolDefinitionProblem): string {
  const which = problem.name === null ? `tool #${problem.index}` : `tool "${problem.name}" (#${problem.index})`;
  const issues = problem.issues.map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message));
  return `${which}: ${issues.join('; ')}`;
}
