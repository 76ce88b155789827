import {
  DEFAULT_MAX_RESPONSE_TOKENS,
  HTTP_METHODS,
  MAX_SIGNIFICANT_TERMS,
  MAX_SYNONYMS,
  MAX_TERM_LENGTH,
  PARAMETER_SOURCES,
  TOOL_NAME_PATTERN,
  type HttpMethod,
  type ParameterSource,
} from '@tollgate/contract';
import { z } from 'zod';
import { paramHeaderMarks } from '../protocol/param-headers.js';
import { resolvePointer } from '../util/json-pointer.js';

/**
 * The gateway's reading of one tool definition served at `GET /gw/schema`
 * (contract 2.5). The shape, name rule and defaults are @tollgate/contract's, shared
 * with host-kit; the checks are the gateway's own, not host-kit's: the gateway talks
 * to any downstream that serves this JSON, whatever produced it.
 */

export {
  DEFAULT_MAX_RESPONSE_TOKENS,
  HTTP_METHODS,
  PARAMETER_SOURCES,
  TOOL_NAME_PATTERN,
  type HttpMethod,
  type ParameterSource,
};

/** `{name}` placeholders in a route pattern. */
export const ROUTE_PARAMETER = /\{([^{}/]+)\}/g;

// RFC 3986 path characters plus the braces of placeholders. Rules out `?`,
// `#`, spaces and backslashes, which would change what the URL means.
const ROUTE_PATTERN_CHARS = /^\/[A-Za-z0-9\-._~!$&'()*+,;=:@%/{}]*$/;

/**
 * The JSON Schema dialects an input schema may declare in `$schema`. Without
 * one, a schema is read as 2020-12, MCP's default dialect since 2025-11-25.
 * Trailing `#` or not, as both forms are in use.
 */
export const JSON_SCHEMA_DIALECTS = {
  'https://json-schema.org/draft/2020-12/schema': '2020-12',
  'https://json-schema.org/draft/2020-12/schema#': '2020-12',
  'http://json-schema.org/draft-07/schema#': 'draft-07',
  'http://json-schema.org/draft-07/schema': 'draft-07',
} as const;
export type JsonSchemaDialect = (typeof JSON_SCHEMA_DIALECTS)[keyof typeof JSON_SCHEMA_DIALECTS];

const DIALECT_HINT = 'use https://json-schema.org/draft/2020-12/schema or http://json-schema.org/draft-07/schema#';

/** The dialect of an input schema that passed `ToolDefinitionSchema`. */
export function schemaDialect(schema: { $schema?: string | undefined }): JsonSchemaDialect {
  return schema.$schema === undefined
    ? '2020-12'
    : JSON_SCHEMA_DIALECTS[schema.$schema as keyof typeof JSON_SCHEMA_DIALECTS];
}

/** An input has a `type`, a `$ref` to one (2020-12 and draft-07 `$defs`/`definitions`), or both. */
const InputPropertySchema = z
  .looseObject({
    type: z.union([z.string(), z.array(z.string())]).optional(),
    $ref: z.string().min(1).optional(),
    description: z.string().nullable().optional(),
  })
  .refine((property) => property.type !== undefined || property.$ref !== undefined, {
    message: 'must have a type or a $ref',
    path: ['type'],
  });

const InputSchemaSchema = z.looseObject({
  $schema: z
    .string()
    .refine((uri) => Object.hasOwn(JSON_SCHEMA_DIALECTS, uri), {
      error: (issue) => `unsupported JSON Schema dialect ${JSON.stringify(issue.input)}: ${DIALECT_HINT}`,
    })
    .optional(),
  type: z.literal('object'),
  properties: z.record(z.string(), InputPropertySchema),
  required: z.array(z.string()).default([]),
});

/** A word or phrase, or a group of synonyms counted as one term (cache/semantic-guard.ts). */
const TermSchema = z.string().trim().min(1).max(MAX_TERM_LENGTH);
const SignificantTermSchema = z.union([TermSchema, z.array(TermSchema).min(1).max(MAX_SYNONYMS)]);

/**
 * How the gateway may cache a read tool's answers. The exact tier applies to
 * every read tool; `semantic: true` opts a free-text tool (a search) into
 * answers for texts of the same meaning. `significantTerms`: words that must
 * appear in both texts or in neither for a semantic hit (categories,
 * product types), beyond the built-in negations, numbers, names and opposites.
 */
// Unknown fields are dropped, like unknown fields of the definition:
// a newer host-kit's settings must not cost a tool on this gateway.
export const ToolCacheSchema = z.object({
  semantic: z.boolean().default(false),
  significantTerms: z.array(SignificantTermSchema).max(MAX_SIGNIFICANT_TERMS).default([]),
});

/**
 * How a query input that is an array or an object goes into the URL, as an
 * OpenAPI document's `style` and `explode` say (OpenAPI 3.1, 4.8.12.4). Without
 * an entry, arrays repeat the parameter and objects travel as JSON text.
 */
export type QueryStyle = 'form' | 'spaceDelimited' | 'pipeDelimited' | 'deepObject';
const QUERY_STYLES = ['form', 'spaceDelimited', 'pipeDelimited', 'deepObject'] as const satisfies readonly QueryStyle[];
export interface QuerySerialization {
  style: QueryStyle;
  explode: boolean;
}
const QuerySerializationSchema: z.ZodType<QuerySerialization> = z.object({
  style: z.enum(QUERY_STYLES),
  explode: z.boolean(),
});

const ToolDefinitionObject = z.object({
  name: z.string().regex(TOOL_NAME_PATTERN, 'must be 1-128 characters of A-Z, a-z, 0-9, _, . or -'),
  description: z.string().trim().min(1, 'must not be empty'),
  allowWrite: z.boolean().default(false),
  /** The user confirms each call before it is sent (MCP 2026-07-28 elicitation; refused on earlier revisions). */
  confirm: z.boolean().default(false),
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
  cache: ToolCacheSchema.optional(),
  querySerialization: z.record(z.string(), QuerySerializationSchema).optional(),
  /**
   * A body input's property name in the JSON body, where it differs from the
   * input's: an OpenAPI operation whose body has a property named like one of
   * its path or query parameters takes it as another input (catalog/openapi).
   */
  bodyNames: z.record(z.string(), z.string().min(1)).optional(),
});

export const ToolDefinitionSchema = ToolDefinitionObject.superRefine(checkInputsAgree);

/**
 * Where a tool the gateway serves comes from, when it fronts several
 * downstreams. Set by the gateway, never read from `/gw/schema` (the schema
 * drops fields it does not know), so a downstream cannot claim another's name.
 */
export interface ToolOrigin {
  /** The configured name of the downstream serving the tool. */
  downstream?: string;
  /** The name the downstream declared, when agents know the tool by a prefixed one: the downstream knows it by this. */
  declaredName?: string;
}

export type ToolDefinition = z.output<typeof ToolDefinitionSchema> & ToolOrigin;
export type InputSchema = ToolDefinition['inputSchema'];
export type ToolCacheSettings = z.output<typeof ToolCacheSchema>;

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
    if (tool.parameterSources[name] !== 'route')
      issue(['routePattern'], `placeholder {${name}} is not a route-sourced input`);
    if (!tool.inputSchema.required.includes(name))
      issue(['inputSchema', 'required'], `route input "${name}" must be required`);
  }
  for (const [name, source] of Object.entries(tool.parameterSources)) {
    if (source === 'route' && !placeholders.includes(name))
      issue(['parameterSources', name], `route input "${name}" has no {${name}} in routePattern`);
  }
  if (tool.routePattern.split('/').some((segment) => segment === '.' || segment === '..')) {
    issue(['routePattern'], 'must not contain . or .. segments');
  }
  for (const name of Object.keys(tool.querySerialization ?? {})) {
    if (tool.parameterSources[name] !== 'query') issue(['querySerialization', name], `"${name}" is not a query input`);
  }
  // MCP 2026-07-28: a client drops a tool with a mark the revision forbids, so the gateway does not serve it either.
  for (const problem of paramHeaderMarks(tool.inputSchema).problems)
    issue(['inputSchema', ...problem.path], problem.message);
  checkBodyNames(tool, issue);
  for (const [name, source] of Object.entries(tool.parameterSources)) {
    const property = tool.inputSchema.properties[name];
    if (source === 'body' || property === undefined || property.type !== undefined) continue;
    const problem = unresolvedType(tool.inputSchema, property.$ref as string);
    if (problem) issue(['inputSchema', 'properties', name, '$ref'], `${source} input "${name}": ${problem}`);
  }
}

/** Renamed body inputs are body inputs, and no two body inputs land on the same property of the body. */
function checkBodyNames(
  tool: z.output<typeof ToolDefinitionObject>,
  issue: (path: (string | number)[], message: string) => void,
): void {
  if (tool.bodyNames === undefined) return;
  for (const name of Object.keys(tool.bodyNames)) {
    if (tool.parameterSources[name] !== 'body') issue(['bodyNames', name], `"${name}" is not a body input`);
  }
  const landed = new Map<string, string>();
  for (const [name, source] of Object.entries(tool.parameterSources)) {
    if (source !== 'body') continue;
    const property = tool.bodyNames[name] ?? name;
    const other = landed.get(property);
    if (other !== undefined)
      issue(['bodyNames', name], `body inputs "${other}" and "${name}" would both be sent as "${property}"`);
    landed.set(property, name);
  }
}

/** How many `$ref`s in a row are followed to find a route or query input's type. */
const MAX_REF_HOPS = 8;

/**
 * A route or query input whose property is only a `$ref` must resolve, inside
 * this input schema, to a definition with a `type`: those values go into the
 * URL, so the gateway must know what they are as surely as for an input with
 * its own `type` (the dashboard shows it, the cache tells text from ids by it).
 * Body inputs travel as JSON and may `$ref` anything ajv can compile.
 * Returns why not, or null when the type is known.
 */
function unresolvedType(root: Record<string, unknown>, ref: string): string | null {
  let target: unknown = { $ref: ref };
  for (let hop = 0; hop < MAX_REF_HOPS; hop++) {
    if (!isObject(target)) return `$ref ${JSON.stringify(ref)} does not resolve to a schema`;
    if (target.type !== undefined) return null;
    if (typeof target.$ref !== 'string') return `$ref ${JSON.stringify(ref)} resolves to a schema without a type`;
    target = resolvePointer(root, target.$ref);
    if (target === undefined) return `$ref ${JSON.stringify(ref)} must point into this schema's $defs or definitions`;
  }
  return `$ref ${JSON.stringify(ref)} goes through more than ${MAX_REF_HOPS} $refs`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
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
    return {
      tools: [],
      problems: [
        {
          index: -1,
          name: null,
          issues: [{ path: '', message: 'the schema must be a JSON array of tool definitions' }],
        },
      ],
    };
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
