import { DownstreamError, type AuditEvent, type TokenService } from '@tollgate/gateway-core';
import { Hono } from 'hono';
import { requireAdmin, type AdminEnv } from '../http/admin-guard.js';
import type { ToolCatalog } from '../registry/tool-catalog.js';
import type { ToolRefresher } from '../registry/tool-refresher.js';

export interface ToolRoutesDeps {
  tokens: TokenService;
  catalog: ToolCatalog;
  refresher: ToolRefresher;
  audit: (event: AuditEvent) => void;
}

/** /management/tools: what the gateway currently serves, and a refresh on demand (admin). */
export function toolRoutes({ tokens, catalog, refresher, audit }: ToolRoutesDeps): Hono<AdminEnv> {
  const app = new Hono<AdminEnv>();
  app.use('*', requireAdmin(tokens));
  app.get('/', (c) => c.json({ ...catalog.lastLoad, definitions: catalog.definitions() }));
  app.post('/refresh', async (c) => {
    try {
      const load = await refresher.refresh('admin request', true);
      audit({ kind: 'management', outcome: 'tools.refreshed', actor: c.get('adminActor') ?? null, detail: `${load.tools.length} tools` });
      return c.json(load);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new DownstreamError(`Could not read the downstream's /gw/schema (${reason}); the current tools stay in service`);
    }
  });
  return app;
}
