import { Hono } from 'hono';
import type { ToolCatalog } from '../../registry/tool-catalog.js';
import type { UsageReader } from '../../usage/usage-reader.js';
import { downstreamViews, type BreakerOf } from '../downstream-views.js';
import type { DashboardContext, DashboardEnv } from '../env.js';
import { usageRangeOf } from '../usage-range.js';
import { pageUsage } from '../usage-reports.js';
import { DownstreamSummary } from '../views/downstreams.js';
import { DownstreamsPage, UsageDetailPage, type DetailUsage } from '../views/usage-detail.js';
import { downstreamLink, toolLink, toolUsageHref } from '../views/usage-overview.js';

export interface UsageDetailDeps {
  catalog: Pick<ToolCatalog, 'definitions' | 'downstreams'>;
  breakerOf: BreakerOf;
  usage: UsageReader;
}

/**
 * What a tool name in an address may be: MCP tool-name characters, as long
 * as a prefixed imported name gets. Anything else is no tool's page (404),
 * never a read of the counters.
 */
const TOOL_NAME = /^[A-Za-z0-9_.\-/]{1,128}$/;

/** Per tool and per downstream: calls, errors by class and latency over a range, from the usage counters. */
export function usageDetailPages(deps: UsageDetailDeps): Hono<DashboardEnv> {
  const app = new Hono<DashboardEnv>();
  app.get('/tools/:name', (c) => toolPage(deps, c, c.req.param('name')));
  app.get('/downstreams', (c) => downstreamsPage(deps, c));
  app.get('/downstreams/:name', (c) => downstreamPage(deps, c, c.req.param('name')));
  return app;
}

async function detailUsage(
  deps: UsageDetailDeps,
  c: DashboardContext,
  breakdown: 'agent' | 'tool',
  only: { tool: string } | { downstream: string },
) {
  const range = usageRangeOf(c.req.query(), Date.now());
  const { reports, problem } = await pageUsage(deps.usage, range, [undefined, 'outcome', breakdown], only);
  const usage: DetailUsage = { overall: reports[0]!, byOutcome: reports[1]!, breakdown: reports[2]!, problem };
  return { range, usage };
}

async function toolPage(deps: UsageDetailDeps, c: DashboardContext, name: string) {
  if (!TOOL_NAME.test(name)) return c.notFound();
  const tool = deps.catalog.definitions().find((definition) => definition.name === name);
  const { range, usage } = await detailUsage(deps, c, 'agent', { tool: name });
  const labels = usage.breakdown.labels;
  const summary = tool ? (
    <p class="hint">
      {tool.httpMethod} <code>{tool.routePattern}</code>
      {tool.downstream !== undefined && <> · downstream {downstreamLink(tool.downstream)}</>}
    </p>
  ) : (
    <p class="hint">Not in the tool library now: these are the calls the counters kept.</p>
  );
  return c.html(
    <UsageDetailPage
      csrfToken={c.get('csrfToken')}
      section="tools"
      title={`Tool ${name}`}
      action={toolUsageHref(name)}
      range={range}
      usage={usage}
      breakdownCaption="Agents calling it"
      breakdownName={(id) => (id === '' ? labels[id] : <a href={`/dashboard/agents/${id}`}>{labels[id] ?? id}</a>)}
      summary={summary}
      back={{ href: '/dashboard/tools', label: 'Tool library' }}
    />,
  );
}

async function downstreamsPage(deps: UsageDetailDeps, c: DashboardContext) {
  const range = usageRangeOf(c.req.query(), Date.now());
  const { reports, problem } = await pageUsage(deps.usage, range, ['downstream']);
  return c.html(
    <DownstreamsPage
      csrfToken={c.get('csrfToken')}
      range={range}
      downstreams={downstreamViews(deps)}
      byDownstream={reports[0]!}
      problem={problem}
    />,
  );
}

async function downstreamPage(deps: UsageDetailDeps, c: DashboardContext, name: string) {
  // Only a configured downstream has a page: the name is checked against the configuration, not trusted.
  const downstream = downstreamViews(deps).find((view) => view.name === name);
  if (!downstream) return c.notFound();
  const { range, usage } = await detailUsage(deps, c, 'tool', { downstream: name });
  return c.html(
    <UsageDetailPage
      csrfToken={c.get('csrfToken')}
      section="downstreams"
      title={`Downstream ${name}`}
      action={`/dashboard/downstreams/${encodeURIComponent(name)}`}
      range={range}
      usage={usage}
      breakdownCaption="Its tools"
      breakdownName={toolLink}
      summary={<DownstreamSummary downstream={downstream} />}
      back={{ href: '/dashboard/downstreams', label: 'Downstreams' }}
    />,
  );
}
