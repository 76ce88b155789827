import { checkAuditQuery, TOOL_CALL_OUTCOMES, type AgentService, type AuditLog, type AuditQuery } from '@tollgate/gateway-core';
import { Hono } from 'hono';
import type { ToolCatalog } from '../../registry/tool-catalog.js';
import type { DashboardContext, DashboardEnv } from '../env.js';
import { queryText } from '../query-text.js';
import { toolNames } from '../tool-library.js';
import { AuditPage, type AuditFilters } from '../views/audit.js';

export interface AuditDeps {
  agents: AgentService;
  auditLog: AuditLog;
  catalog: Pick<ToolCatalog, 'definitions'>;
}

const AUDIT_PAGE_SIZE = 50;
/** The outcomes of admin changes, offered in the filter next to the tool-call outcomes. */
const MANAGEMENT_OUTCOMES = ['agent.created', 'agent.updated', 'agent.deleted', 'agent.token-issued', 'agent.budget-reset', 'tools.refreshed'];

/** The audit trail, newest first, filtered and paged by cursor like GET /management/audit. */
export function auditPages(deps: AuditDeps): Hono<DashboardEnv> {
  const app = new Hono<DashboardEnv>();
  app.get('/audit', (c) => auditPage(deps, c));
  return app;
}

async function auditPage(deps: AuditDeps, c: DashboardContext) {
  const filters: AuditFilters = { agent: queryText(c, 'agent'), tool: queryText(c, 'tool'), outcome: queryText(c, 'outcome') };
  const before = c.req.query('before');
  const query = auditQuery(filters, before);
  const [page, list] = await Promise.all([deps.auditLog.query(query), deps.agents.list()]);
  const props = {
    csrfToken: c.get('csrfToken'),
    filters,
    records: page.records,
    nextCursor: page.nextCursor,
    paged: before !== undefined,
    agentIds: list.map(({ agentId, label }) => ({ agentId, label })),
    toolNames: toolNames(deps.catalog.definitions()),
    outcomes: [...TOOL_CALL_OUTCOMES, ...MANAGEMENT_OUTCOMES],
  };
  return c.html(<AuditPage {...props} />);
}

/** An empty filter is no filter; a cursor the log never gave out is refused before the log is read. */
function auditQuery(filters: AuditFilters, before: string | undefined): AuditQuery {
  const query: AuditQuery = {
    limit: AUDIT_PAGE_SIZE,
    ...(filters.agent ? { agentId: filters.agent } : {}),
    ...(filters.tool ? { tool: filters.tool } : {}),
    ...(filters.outcome ? { outcome: filters.outcome } : {}),
    ...(before ? { before } : {}),
  };
  checkAuditQuery(query);
  return query;
}
