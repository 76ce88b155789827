import type { Context, Hono } from 'hono';
import { collectEndpointTools, markedRoutes, type RouteEntry } from './endpoint/collect-endpoint-tools.js';
import { describeMisconfiguration, type Misconfiguration } from './endpoint/misconfiguration.js';
import type { AgentToolManifest } from './manifest.js';
import { mergeTools } from './schema/merge-tools.js';
import type { ToolDefinition } from './tool-definition.js';
import { SCHEMA_PATH } from '@tollgate/contract';

export { SCHEMA_PATH };

export interface AgentToolSchemaOptions {
  /**
   * Also serve routes marked with `withAgentTool` (read from `app.routes`).
   * Default false; left unset while routes are marked, the first request logs
   * one warning naming them.
   */
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
export function mapAgentToolSchema<
  // biome-ignore lint/suspicious/noExplicitAny: Hono's parameters are invariant; only `any` accepts every app.
  App extends Hono<any, any, any>,
>(app: App, options: AgentToolSchemaOptions = {}): App {
  const annotated = options.manifest?.tools ?? [];
  const includeEndpoints = options.includeMappedEndpoints === true;
  let cached: SchemaResult | undefined;
  // Synchronous from start to end: concurrent first requests cannot interleave
  // inside it, so the walk happens exactly once.
  const schema = (): SchemaResult => {
    if (!cached && options.includeMappedEndpoints === undefined) warnLeftOut(markedRoutes(app.routes));
    return (cached ??= buildSchema(annotated, includeEndpoints ? app.routes : null));
  };

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

/**
 * Contract 4.5 serves only annotated tools by default, so marked routes are
 * left out unless asked for. Said once, since an empty tool list is otherwise
 * silent; setting the option either way is a choice and says nothing.
 */
function warnLeftOut(marked: readonly string[]): void {
  if (marked.length === 0) return;
  console.warn(
    `@tollgate/host-kit: ${SCHEMA_PATH} leaves out ${marked.length} route${marked.length === 1 ? '' : 's'} ` +
      `marked with withAgentTool: ` +
      `${marked.join(', ')}. Pass { includeMappedEndpoints: true } to mapAgentToolSchema to serve them (false to ` +
      `keep them out without this warning).`,
  );
}

function buildSchema(annotated: readonly ToolDefinition[], routes: readonly RouteEntry[] | null): SchemaResult {
  const endpoint = routes ? collectEndpointTools(routes) : { tools: [], problems: [] };
  const merged = mergeTools(annotated, endpoint.tools);
  const problems = [...endpoint.problems, ...merged.problems];
  return problems.length > 0 ? { ok: false, problems } : { ok: true, tools: merged.tools };
}
