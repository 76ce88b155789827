import { Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ToolCatalog } from '../../registry/tool-catalog.js';
import { actor } from '../actor.js';
import { downstreamViews, type BreakerOf } from '../downstream-views.js';
import type { DashboardContext, DashboardEnv } from '../env.js';
import { notice } from '../notices.js';
import { MAX_FILTER_LENGTH } from '../query-text.js';
import { groupToolsByCategory } from '../tool-library.js';
import { ToolsPage } from '../views/tools.js';

export interface ToolsDeps {
  catalog: Pick<ToolCatalog, 'definitions' | 'downstreams' | 'loaded'>;
  breakerOf: BreakerOf;
  /** Re-reads the downstream's /gw/schema now; resolves with how many tools it serves. */
  /** Reloads the tools as this actor; resolves with how many tools are served. */
  refreshTools: (actor: string) => Promise<number>;
  /** The names of the tools best matching a need, ranked as search_tools ranks them (issue 28). */
  searchTools?: (query: string, limit: number) => Promise<string[]>;
}

/** Tools a ranked search shows; the library below still lists every tool. */
const RANKED_RESULTS = 10;

/** The tool library, and reloading it from the downstream. */
export function toolPages(deps: ToolsDeps): Hono<DashboardEnv> {
  const app = new Hono<DashboardEnv>();
  app.get('/tools', (c) => toolsPage(deps, c));
  app.post('/tools/refresh', (c) => reloadTools(deps, c));
  return app;
}

async function toolsPage(
  deps: ToolsDeps,
  c: DashboardContext,
  status: ContentfulStatusCode = 200,
  refreshError?: string,
) {
  // Not trimmed, unlike the audit filters: the box shows it back exactly as typed.
  const filter = (c.req.query('q') ?? '').slice(0, MAX_FILTER_LENGTH);
  const need = (c.req.query('find') ?? '').slice(0, MAX_FILTER_LENGTH);
  const groups = groupToolsByCategory(deps.catalog.definitions());
  const ranked =
    deps.searchTools && need.trim() !== ''
      ? { need, names: await deps.searchTools(need, RANKED_RESULTS) }
      : { need, names: null };
  return c.html(
    <ToolsPage
      ranked={ranked}
      searchable={deps.searchTools !== undefined}
      csrfToken={c.get('csrfToken')}
      groups={groups}
      downstreams={downstreamViews(deps)}
      filter={filter}
      loaded={deps.catalog.loaded}
      notice={notice(c)}
      {...(refreshError ? { refreshError } : {})}
    />,
    status,
  );
}

async function reloadTools(deps: ToolsDeps, c: DashboardContext) {
  try {
    await deps.refreshTools(actor(c));
  } catch {
    // The reason can name internal addresses: the log has it, the page says what it means.
    return toolsPage(deps, c, 502, "The downstream's /gw/schema could not be read; the current tools stay in service.");
  }
  return c.redirect('/dashboard/tools?done=tools-refreshed', 303);
}
