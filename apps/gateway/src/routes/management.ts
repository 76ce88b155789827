import type { AgentService, TokenService } from '@tollgate/gateway-core';
import type { AuditLog } from '@tollgate/gateway-core/store';
import { Hono } from 'hono';
import { requireAdmin, type AdminEnv } from '../http/admin-guard.js';
import { jsonBodyLimit } from '../http/json-body.js';
import type { ToolCatalog } from '../registry/tool-catalog.js';
import type { ToolRefresher } from '../registry/tool-refresher.js';
import { agentRoutes } from './agents.js';
import { auditRoutes } from './audit.js';
import { toolRoutes } from './tools.js';
import { usageRoutes } from './usage.js';
import type { UsageReader } from '../usage/usage-reader.js';

export interface ManagementDeps {
  agents: AgentService;
  tokens: TokenService;
  auditLog: AuditLog;
  catalog: ToolCatalog;
  refresher: ToolRefresher;
  usage: UsageReader;
}

/** /management: every route needs an admin JWT (contract 4.2, 5 rule 1), checked once here. */
export function managementRoutes({
  agents,
  tokens,
  auditLog,
  catalog,
  refresher,
  usage,
}: ManagementDeps): Hono<AdminEnv> {
  const app = new Hono<AdminEnv>();
  app.use('*', requireAdmin(tokens));
  // After the admin check, so an unauthenticated caller cannot make the gateway buffer anything.
  app.use('*', jsonBodyLimit());
  app.route('/', agentRoutes(agents));
  app.route('/', auditRoutes({ agents, log: auditLog }));
  app.route('/tools', toolRoutes({ catalog, refresher }));
  app.route('/', usageRoutes(usage));
  return app;
}
