import type { AgentService } from '@tollgate/gateway-core';
import { checkAuditQuery, type AuditLog, type AuditQuery } from '@tollgate/gateway-core/store';
import { Hono, type Context } from 'hono';
import type { AdminEnv } from '../http/admin-guard.js';

const DEFAULT_PAGE_SIZE = 50;

export interface AuditRoutesDeps {
  agents: AgentService;
  log: AuditLog;
}

/**
 * Reading the audit trail (admin): newest first, cursor-paginated.
 * `GET /management/audit?agentId=&tool=&outcome=&limit=&before=` and
 * `GET /management/agents/{agentId}/audit?tool=&outcome=&limit=&before=`.
 */
export function auditRoutes({ agents, log }: AuditRoutesDeps): Hono<AdminEnv> {
  const app = new Hono<AdminEnv>();
  app.get('/audit', async (c) => c.json(await log.query(auditQuery(c, c.req.query('agentId')))));
  app.get('/agents/:agentId/audit', async (c) => {
    const agentId = c.req.param('agentId');
    const page = await log.query(auditQuery(c, agentId));
    // A deleted agent's trail stays readable; an id that never had an agent nor a record is a 404.
    if (page.records.length === 0 && !c.req.query('before')) await agents.get(agentId);
    return c.json(page);
  });
  return app;
}

function auditQuery(c: Context<AdminEnv>, agentId: string | undefined): AuditQuery {
  const limit = c.req.query('limit');
  const query: AuditQuery = {
    limit: limit === undefined ? DEFAULT_PAGE_SIZE : /^\d+$/.test(limit) ? Number(limit) : Number.NaN,
    ...(agentId ? { agentId } : {}),
    ...(c.req.query('before') ? { before: c.req.query('before') } : {}),
    ...(c.req.query('tool') ? { tool: c.req.query('tool') } : {}),
    ...(c.req.query('outcome') ? { outcome: c.req.query('outcome') } : {}),
  };
  checkAuditQuery(query);
  return query;
}
