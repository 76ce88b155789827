import type { AgentService, AuditLog } from '@tollgate/gateway-core';
import { Hono } from 'hono';
import type { Readiness } from '../../readiness.js';
import type { ToolCatalog } from '../../registry/tool-catalog.js';
import type { DashboardContext, DashboardEnv } from '../env.js';
import { downstreamViews, type BreakerOf } from '../downstream-views.js';
import { lastHourStats } from '../overview-stats.js';
import { OverviewPage } from '../views/overview.js';

export interface OverviewDeps {
  agents: AgentService;
  auditLog: AuditLog;
  catalog: Pick<ToolCatalog, 'downstreams'>;
  readiness: Pick<Readiness, 'report'>;
  breakerOf: BreakerOf;
}

/** `/dashboard` itself: is the gateway healthy, and what did it do in the last hour. */
export function overviewPages(deps: OverviewDeps): Hono<DashboardEnv> {
  const app = new Hono<DashboardEnv>();
  app.get('/', (c) => showOverview(deps, c));
  return app;
}

async function showOverview(deps: OverviewDeps, c: DashboardContext) {
  const [readiness, stats, list] = await Promise.all([deps.readiness.report(), lastHourStats(deps.auditLog), deps.agents.list()]);
  const labels = new Map(list.map((agent) => [agent.agentId, agent.label]));
  return c.html(<OverviewPage csrfToken={c.get('csrfToken')} readiness={readiness} downstreams={downstreamViews(deps)} stats={stats} labels={labels} />);
}
