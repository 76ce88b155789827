import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { HttpMethod, ToolDefinition } from '../../../tools/definition.js';
import type { RegisteredTool, ToolInputSchema } from '../../../tools/registry.js';

/**
 * GitHub's REST API (`@octokit/openapi`, api.github.com) as tools, for the
 * search evaluation: one tool per operation, named from its operationId,
 * described by its summary and description, with its parameters and JSON
 * body properties. A reading just wide enough to rank; the gateway's
 * OpenAPI importer is what serves such tools.
 */

interface Operation {
  operationId: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: Array<{ $ref?: string; name?: string; in?: string; description?: string; schema?: unknown }>;
  requestBody?: { content?: Record<string, { schema?: { $ref?: string; properties?: Record<string, { description?: string; type?: unknown }> } }> };
}

interface OpenApiDocument {
  paths: Record<string, Partial<Record<Lowercase<HttpMethod>, Operation>>>;
  components: { parameters: Record<string, { name: string; in: string; description?: string }>; schemas: Record<string, { properties?: Record<string, { description?: string }> }> };
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

export function loadGithubDocument(): OpenApiDocument {
  const require = createRequire(import.meta.url);
  const file = require.resolve('@octokit/openapi/generated/api.github.com.json');
  return JSON.parse(readFileSync(file, 'utf8')) as OpenApiDocument;
}

/** The tool name an operation gets here: its operationId with `/` read as `_` (`issues/list-for-repo` → `issues_list-for-repo`), uncut, so every name stays unique. */
export function githubToolName(operationId: string): string {
  return operationId.replace(/\//g, '_');
}

export function githubTools(document: OpenApiDocument = loadGithubDocument()): RegisteredTool[] {
  const tools: RegisteredTool[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (operation) tools.push(toolOf(document, path, method, operation));
    }
  }
  return tools;
}

function toolOf(document: OpenApiDocument, path: string, method: (typeof METHODS)[number], operation: Operation): RegisteredTool {
  const properties: Record<string, unknown> = {};
  for (const parameter of operation.parameters ?? []) {
    const resolved = parameter.$ref ? document.components.parameters[parameter.$ref.split('/').pop()!] : parameter;
    if (resolved?.name) properties[resolved.name] = { type: 'string', ...(resolved.description && { description: resolved.description }) };
  }
  const body = operation.requestBody?.content?.['application/json']?.schema;
  const bodySchema = body?.$ref ? document.components.schemas[body.$ref.split('/').pop()!] : body;
  for (const [name, property] of Object.entries(bodySchema?.properties ?? {})) {
    properties[name] = { type: 'string', ...(property.description && { description: property.description }) };
  }
  const description = [operation.summary, operation.description].filter(Boolean).join('. ').slice(0, 1_000);
  const definition: ToolDefinition = {
    name: githubToolName(operation.operationId),
    description,
    allowWrite: true,
    maxResponseTokens: 2_000,
    category: operation.tags?.[0] ?? null,
    requiredScopes: [],
    httpMethod: method.toUpperCase() as HttpMethod,
    routePattern: path,
    parameterSources: {},
    inputSchema: { type: 'object', properties: properties as ToolDefinition['inputSchema']['properties'], required: [] },
  };
  const inputSchema: ToolInputSchema = { type: 'object', properties, required: [] };
  return { definition, inputSchema, validateArguments: (() => true) as unknown as RegisteredTool['validateArguments'] };
}
