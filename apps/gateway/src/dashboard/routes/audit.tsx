import type { AgentService } from '@tollgate/gateway-core';
import {
  checkAuditQuery,
  TOOL_CALL_OUTCOMES,
  type AuditLog,
  type AuditPage as AuditRecordsPage,
  type AuditQuery,
} from '@tollgate/gateway-core/store';
import { Hono } from 'hono';
import type { ToolCatalog } from '../../registry/tool-catalog.js';
import type { DashboardContext, DashboardEnv } from '../env.js';
import { queryText } from '../query-text.js';
import { toolNames } from '../tool-library.js';
import { AuditPage, type AuditFilters } from '../views/audit.js';
import { agentIdOf, exportStream } from '../audit-export.js';

export interface AuditDeps {
  agents: AgentService;
  auditLog: AuditLog;
  catalog: Pick<ToolCatalog, 'definitions'>;
}

const AUDIT_PAGE_SIZE = 50;
/** The outcomes of admin changes, offered in the filter next to the tool-call outcomes. */
const MANAGEMENT_OUTCOMES = [
  'agent.created',
  'agent.updated',
  'agent.deleted',
  'agent.token-issued',
  'agent.budget-reset',
  'tools.refreshed',
];

/** The audit trail, newest first, filtered and paged by cursor like GET /management/audit. */
export function auditPages(deps: AuditDeps): Hono<DashboardEnv> {
  const app = new Hono<DashboardEnv>();
  app.get('/audit', (c) => auditPage(deps, c));
  app.get('/audit/export', (c) => exportAudit(deps, c));
  return app;
}

async function auditPage(deps: AuditDeps, c: DashboardContext) {
  const filters: AuditFilters = {
    agent: queryText(c, 'agent'),
    tool: queryText(c, 'tool'),
    outcome: queryText(c, 'outcome'),
    from: queryText(c, 'from'),
    to: queryText(c, 'to'),
  };
  const before = c.req.query('before');
  const range = { from: timeFilter(filters.from), to: timeFilter(filters.to) };
  const list = await deps.agents.list();
  // An agent's label works as well as its id.
  const query = auditQuery({ ...filters, agent: agentIdOf(filters.agent, list) }, before ?? cursorAt(range.to));
  const page = inRange(await deps.auditLog.query(query), range);
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

/**
 * The newest page starts at `to`: a record id is `<ms>-<sequence>`,
 * so `<to>-0` is before every record of that millisecond on.
 */
function cursorAt(to: number | undefined): string | undefined {
  return to === undefined || to <= 0 ? undefined : `${Math.floor(to)}-0`;
}

/**
 * The page's records from `from` (inclusive) to `to` (exclusive) by their
 * time; the first record older than `from` ends the listing (newest first,
 * so every later one is older still).
 */
function inRange(
  page: AuditRecordsPage,
  range: { from: number | undefined; to: number | undefined },
): AuditRecordsPage {
  if (range.from === undefined && range.to === undefined) return page;
  const { from = -Infinity, to = Infinity } = range;
  const records = page.records.filter((record) => Date.parse(record.time) < to);
  const kept = records.filter((record) => Date.parse(record.time) >= from);
  return { records: kept, nextCursor: kept.length < records.length ? null : page.nextCursor };
}

/** A datetime-local or ISO time as epoch ms (a time without a zone is UTC); undefined when blank or unreadable. */
function timeFilter(value: string): number | undefined {
  if (value === '') return undefined;
  const ms = Date.parse(/T\d{2}:\d{2}(:\d{2})?$/.test(value) ? `${value}Z` : value);
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * `GET /dashboard/audit/export?format=jsonl|csv&agent=&tool=&outcome=&from=&to=`: the filtered range as a download,
 * streamed and bounded.
 */
async function exportAudit(deps: AuditDeps, c: DashboardContext) {
  const format = c.req.query('format') === 'csv' ? 'csv' : 'jsonl';
  const list = await deps.agents.list();
  const agentId = agentIdOf(queryText(c, 'agent'), list);
  const [tool, outcome] = [queryText(c, 'tool'), queryText(c, 'outcome')];
  const [from, to] = [timeFilter(queryText(c, 'from')), timeFilter(queryText(c, 'to'))];
  const filters = {
    ...(agentId ? { agentId } : {}),
    ...(tool ? { tool } : {}),
    ...(outcome ? { outcome } : {}),
    ...(from !== undefined ? { from } : {}),
    ...(to !== undefined ? { to } : {}),
  };
  const stream = exportStream(
    deps.auditLog,
    filters,
    format,
    new Map(list.map((agent) => [agent.agentId, agent.label])),
  );
  return new Response(stream, {
    headers: {
      'Content-Type': format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8',
      'Content-Disposition': `attachment; filename="tollgate-audit.${format === 'csv' ? 'csv' : 'jsonl'}"`,
      'Cache-Control': 'no-store',
    },
  });
}
