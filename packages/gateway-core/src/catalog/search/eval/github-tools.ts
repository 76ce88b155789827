import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { importOpenApi } from '../../openapi/import-openapi.js';
import { buildToolRegistry, type RegisteredTool } from '../../../tools/registry.js';

/**
 * GitHub's REST API (`@octokit/openapi`, api.github.com) as the gateway
 * serves it: imported by the OpenAPI importer, one tool per operation, and
 * registered (schemas compiled) as a downstream's tools are. The labelled
 * questions name operationIds; `toolNameOf` maps them to the tool names the
 * importer gave (cut and hashed past 64 characters).
 */
export interface GithubCatalog {
  tools: RegisteredTool[];
  /** operationId → tool name. */
  toolNameOf: (operationId: string) => string;
  /** The document as read, for a fake GitHub to serve. */
  document: Record<string, unknown>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

export function loadGithubDocument(): Record<string, unknown> {
  const require = createRequire(import.meta.url);
  return JSON.parse(readFileSync(require.resolve('@octokit/openapi/generated/api.github.com.json'), 'utf8')) as Record<
    string,
    unknown
  >;
}

export function githubCatalog(document = loadGithubDocument(), options: { prefix?: string } = {}): GithubCatalog {
  const imported = importOpenApi(document, { prefix: options.prefix ?? '' });
  const { registry } = buildToolRegistry(imported.tools);
  const byOperation = new Map(
    registry
      .list()
      .map((tool) => [`${tool.definition.httpMethod} ${tool.definition.routePattern}`, tool.definition.name]),
  );
  const names = new Map<string, string>();
  for (const [path, item] of Object.entries(
    document.paths as Record<string, Record<string, { operationId?: string }>>,
  )) {
    for (const method of METHODS) {
      const operationId = item[method]?.operationId;
      const name = byOperation.get(`${method.toUpperCase()} ${path}`);
      if (operationId && name) names.set(operationId, name);
    }
  }
  return {
    tools: registry.list(),
    toolNameOf: (operationId) => names.get(operationId) ?? `(not imported: ${operationId})`,
    document,
  };
}
