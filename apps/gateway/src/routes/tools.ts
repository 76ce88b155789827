import { DownstreamError } from '@tollgate/gateway-core/errors';
import { Hono } from 'hono';
import type { AdminEnv } from '../http/admin-guard.js';
import type { ToolCatalog } from '../registry/tool-catalog.js';
import type { ToolRefresher } from '../registry/tool-refresher.js';

export interface ToolRoutesDeps {
  catalog: ToolCatalog;
  refresher: ToolRefresher;
}

/** /management/tools: what the gateway currently serves, and a refresh on demand (admin). */
export function toolRoutes({ catalog, refresher }: ToolRoutesDeps): Hono<AdminEnv> {
  const app = new Hono<AdminEnv>();
  // `definitions` carry their `downstream` (and `declaredName` when
  // prefixed); `downstreams` says how each one's last read went.
  app.get('/', (c) =>
    c.json({ ...catalog.lastLoad, downstreams: catalog.downstreams(), definitions: catalog.definitions() }),
  );
  app.post('/refresh', async (c) => {
    try {
      return c.json(await refresher.reload(c.get('adminActor') ?? null, 'admin request'));
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new DownstreamError(
        `Could not read any downstream's /gw/schema (${reason}); the current tools stay in service`,
      );
    }
  });
  return app;
}
