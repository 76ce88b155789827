import { DownstreamError, type TokenService } from '@tollgate/gateway-core';
import { Hono } from 'hono';
import { requireAdmin } from '../http/admin-guard.js';
import type { ToolCatalog } from '../registry/tool-catalog.js';
import type { ToolRefresher } from '../registry/tool-refresher.js';

export interface ToolRoutesDeps {
  tokens: TokenService;
  catalog: ToolCatalog;
  refresher: ToolRefresher;
}

/** /management/tools: what the gateway currently serves, and a refresh on demand (admin). */
export function toolRoutes({ tokens, catalog, refresher }: ToolRoutesDeps): Hono {
  const app = new Hono();
  app.use('*', requireAdmin(tokens));
  app.get('/', (c) => c.json({ ...catalog.lastLoad, definitions: catalog.definitions() }));
  app.post('/refresh', async (c) => {
    try {
      return c.json(await refresher.refresh('admin request', true));
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new DownstreamError(`Could not read the downstream's /gw/schema (${reason}); the current tools stay in service`);
    }
  });
  return app;
}
