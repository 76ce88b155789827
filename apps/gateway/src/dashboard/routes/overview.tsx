import type { AgentService } from '@tollgate/gateway-core';
import type { AuditLog } from '@tollgate/gateway-core/store';
import { Hono } from 'hono';
import type { Readiness } from '../../health/readiness.js';
import type { ToolCatalog } from '../../registry/tool-catalog.js';
import type { DashboardContext, DashboardEnv } from '../env.js';
import { downstreamViews, type BreakerOf } from '../downstream-views.js';
import { lastHourStats } from '../overview-stats.js';
import { OverviewPage } from '../views/overview.js';
import type { UsageReader } from '../../usage/usage-reader.js';
import { usageRangeOf } from '../usage-range.js';
import { pageUsage } from '../usage-reports.js';
import { unlessStoreUnavailable } from '../store-reads.js';
import { UsageOverview } from '../views/usage-overview.js';

export interface OverviewDeps {
  agents: AgentService;
  auditLog: AuditLog;
  catalog: Pick<ToolCatalog, 'downstreams'>;
  readiness: Pick<Readiness, 'report'>;
  breakerOf: BreakerOf;
  usage: UsageReader;
}

/** `/dashboard` itself: is the gateway healthy, and what did it do in the last hour. */
export function overviewPages(deps: OverviewDeps): Hono<DashboardEnv> {
  const app = new Hono<DashboardEnv>();
  app.get('/', (c) => showOverview(deps, c));
  return app;
}

async function showOverview(deps: OverviewDeps, c: DashboardContext) {
  // The page an operator opens in an incident: readiness is shown even when the reads that span the store are not.
  const [readiness, stats, list, usage] = await Promise.all([
    deps.readiness.report(),
    unlessStoreUnavailable(lastHourStats(deps.auditLog), 'The last hour'),
    unlessStoreUnavailable(deps.agents.list(), 'Agent labels'),
    usageSection(deps, c),
  ]);
  const labels = new Map((list.value ?? []).map((agent) => [agent.agentId, agent.label]));
  return c.html(
    <OverviewPage
      csrfToken={c.get('csrfToken')}
      readiness={readiness}
      downstreams={downstreamViews(deps)}
      stats={stats}
      labels={labels}
      usage={usage}
    />,
  );
}

/** The usage charts of the range the page asks for; a range the reader refuses is said on the page, not a 500. */
async function usageSection(deps: OverviewDeps, c: DashboardContext) {
  const range = usageRangeOf(c.req.query(), Date.now());
  const { reports, problem } = await pageUsage(deps.usage, range, [
    undefined,
    'agent',
    'tool',
    'downstream',
    'outcome',
  ]);
  const [overall, byAgent, byTool, byDownstream, byOutcome] = reports;
  return (
    <UsageOverview
      range={range}
      overall={overall!}
      byAgent={byAgent!}
      byTool={byTool!}
      byDownstream={byDownstream!}
      byOutcome={byOutcome!}
      problem={problem}
    />
  );
}
