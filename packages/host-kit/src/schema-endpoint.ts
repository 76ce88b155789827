import type { Context, Hono } from 'hono';
import { collectEndpointTools, type RouteEntry } from './endpoint/collect-endpoint-tools.js';
import { describeMisconfiguration, type Misconfiguration } from './endpoint/misconfiguration.js';
import type { AgentToolManifest } from './manifest.js';
import { mergeTools } from './schema/merge-tools.js';
import type { ToolDefinition } from './tool-definition.js';

export const SCHEMA_PATH = '/gw/schema';

export interface AgentToolSchemaOptions {
  /** Also serve routes marked with `withAgentTool` (read from `app.routes`). Default false. */
  includeMappedEndpoints?: boolean;
  /** Output of the annotation form's build step; its tools are always served. */
  manifest?: Pick<AgentToolManifest, 'tools'>;
}

type SchemaResult = { ok: true; tools: ToolDefinition[] } | { ok: false; problems: Misconfiguration[] };

/**
 * Registers `GET /gw/schema` (no authentication): the JSON array of tool
 * definitions the gateway reads at startup. Call it on the root app; the
 * routing table is read on the first request, after every route exists,
 * and the answer (tools or misconfiguration) is kept for the process.
 */
export function mapAgentToolSchema<App extends Hono<any, any, any>>(app: App, options: AgentToolSchemaOptions = {}): App {
  const annotated = options.manifest?.tools ?? [];
  const includeEndpoints = options.includeMappedEndpoints === true;
  let cached: SchemaResult | undefined;
  // Synchronous from start to end: concurrent first requests cannot interleave
  // inside it, so the walk happens exactly once.
  const schema = (): SchemaResult => (cached ??= buildSchema(annotated, includeEndpoints ? app.routes : null));

  app.get(SCHEMA_PATH, (c: Context) => {
    const result = schema();
    if (result.ok) return c.json(result.tools);
    return c.json(
      {
        error: 'agent_tool_misconfigured',
        message: result.problems.map(describeMisconfiguration).join('\n'),
        problems: result.problems,
      },
      500,
    );
  });
  return app;
}

function buildSchema(annotated: readonly ToolDefinition[], routes: readonly RouteEntry[] | null): SchemaResult {
  const endpoint = routes ? collectEndpointTools(routes) : { tools: [], problems: [] };
  const merged = mergeTools(annotated, endpoint.tools);
  const problems = [...endpoint.problems, ...merged.problems];
  return problems.length > 0 ? { ok: false, problems } : { ok: true, tools: merged.tools };
}
