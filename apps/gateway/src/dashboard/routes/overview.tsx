import type { AgentService, AuditLog, BreakerState } from '@tollgate/gateway-core';
import { Hono } from 'hono';
import type { Readiness } from '../../readiness.js';
import type { ToolCatalog } from '../../registry/tool-catalog.js';
import type { DashboardContext, DashboardEnv } from '../env.js';
import { lastHourStats } from '../overview-stats.js';
import { OverviewPage } from '../views/overview.js';

export interface OverviewDeps {
  agents: AgentService;
  auditLog: AuditLog;
  catalog: Pick<ToolCatalog, 'lastLoad'>;
  readiness: Pick<Readiness, 'report'>;
  breakerState: () => BreakerState;
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
  return c.html(<OverviewPage csrfToken={c.get('csrfToken')} readiness={readiness} breaker={deps.breakerState()} stats={stats} toolLoad={deps.catalog.lastLoad} labels={labels} />);
}
