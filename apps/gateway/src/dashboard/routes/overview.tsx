import { InvalidInputError, type AgentService, type AuditLog } from '@tollgate/gateway-core';
import { Hono } from 'hono';
import type { Readiness } from '../../readiness.js';
import type { ToolCatalog } from '../../registry/tool-catalog.js';
import type { DashboardContext, DashboardEnv } from '../env.js';
import { downstreamViews, type BreakerOf } from '../downstream-views.js';
import { lastHourStats } from '../overview-stats.js';
import { OverviewPage } from '../views/overview.js';
import type { UsageReader } from '../../usage-reader.js';
import { usageRangeOf } from '../usage-range.js';
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
  const [readiness, stats, list, usage] = await Promise.all([deps.readiness.report(), lastHourStats(deps.auditLog), deps.agents.list(), usageSection(deps, c)]);
  const labels = new Map(list.map((agent) => [agent.agentId, agent.label]));
  return c.html(<OverviewPage csrfToken={c.get('csrfToken')} readiness={readiness} downstreams={downstreamViews(deps)} stats={stats} labels={labels} usage={usage} />);
}

/** The usage charts of the range the page asks for; a range the reader refuses is said on the page, not a 500. */
async function usageSection(deps: OverviewDeps, c: DashboardContext) {
  const range = usageRangeOf(c.req.query(), Date.now());
  try {
    const [overall, byAgent, byTool, byDownstream, byOutcome] = await deps.usage.reports(range.params, [undefined, 'agent', 'tool', 'downstream', 'outcome']);
    return <UsageOverview range={range} overall={overall!} byAgent={byAgent!} byTool={byTool!} byDownstream={byDownstream!} byOutcome={byOutcome!} />;
  } catch (error) {
    if (!(error instanceof InvalidInputError)) throw error;
    const reason = error.fields.map((field) => `${field.path} ${field.message}`).join('; ');
    const empty = { from: '', to: '', interval: 'hour' as const, groupBy: null, buckets: [], totals: [], labels: {} };
    return <UsageOverview range={range} overall={empty} byAgent={empty} byTool={empty} byDownstream={empty} byOutcome={empty} problem={`This range cannot be shown: ${reason}.`} />;
  }
}
