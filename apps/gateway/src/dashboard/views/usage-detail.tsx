import type { UsageFigures } from '@tollgate/gateway-core';
import type { Child } from 'hono/jsx';
import type { LabelledUsageReport } from '../../usage/usage-reader.js';
import type { UsageRangeChoice } from '../usage-range.js';
import { BREAKER_TEXT, type DownstreamView } from './downstreams.js';
import { Page, type Section } from './layout.js';
import { Badge } from './parts.js';
import { BarChart } from './usage-chart.js';
import { downstreamLink, GroupTable, OutcomeTables, RangePicker, Totals } from './usage-overview.js';

/** The reports a tool's or a downstream's page shows, all of one range. */
export interface DetailUsage {
  overall: LabelledUsageReport;
  byOutcome: LabelledUsageReport;
  /** The other dimension: agents for a tool, tools for a downstream. */
  breakdown: LabelledUsageReport;
  problem?: string | undefined;
}

export interface UsageDetailProps {
  csrfToken: string;
  section: Section;
  /** "Tool get_order", "Downstream orders". */
  title: string;
  /** This page's own address, for its range picker. */
  action: string;
  range: UsageRangeChoice;
  usage: DetailUsage;
  breakdownCaption: string;
  breakdownName: (group: string) => Child;
  /** What the page says above the figures (where the tool is served, the downstream's breaker…). */
  summary?: Child;
  back: { href: string; label: string };
}

const series = (report: LabelledUsageReport, pick: (bucket: UsageFigures) => number) =>
  report.buckets.map((bucket) => ({ start: bucket.start, value: pick(bucket) }));

/**
 * One tool's or one downstream's calls over the range: totals,
 * charts, how calls ended, and the other dimension's table.
 */
export function UsageDetailPage(props: UsageDetailProps) {
  const { overall, byOutcome, breakdown, problem } = props.usage;
  const interval = overall.interval;
  const total = overall.totals[0];
  return (
    <Page title={props.title} session={{ section: props.section, csrfToken: props.csrfToken }}>
      <p>
        <a href={props.back.href}>← {props.back.label}</a>
      </p>
      {props.summary}
      <RangePicker range={props.range} action={props.action} />
      {problem ? (
        <p class="alert">{problem}</p>
      ) : (
        <>
          {total && <Totals figures={total} />}
          <div class="panels">
            <BarChart id="calls" title="Tool calls" points={series(overall, (b) => b.calls)} interval={interval} />
            <BarChart
              id="errors"
              title="Errors"
              points={series(overall, (b) => b.errors)}
              interval={interval}
              tone="errors"
            />
            <BarChart
              id="latency"
              title="Latency p95 (ms)"
              points={series(overall, (b) => b.latencyMs.p95 ?? 0)}
              interval={interval}
            />
          </div>
          <div class="panels">
            <OutcomeTables total={total} byOutcome={byOutcome} />
            <GroupTable
              caption={props.breakdownCaption}
              rows={breakdown.totals}
              name={props.breakdownName}
              splitErrors
              limit={50}
            />
          </div>
        </>
      )}
    </Page>
  );
}

export interface DownstreamsPageProps {
  csrfToken: string;
  range: UsageRangeChoice;
  downstreams: readonly DownstreamView[];
  byDownstream: LabelledUsageReport;
  problem?: string | undefined;
}

/** Every downstream: its breaker, and its calls, errors (by class) and latency over the range. */
export function DownstreamsPage({ csrfToken, range, downstreams, byDownstream, problem }: DownstreamsPageProps) {
  const configured = new Set(downstreams.map((downstream) => downstream.name));
  // Configured ones first, with or without calls; then names only the counters remember (a downstream since removed),
  // and calls refused before any.
  const rows = [
    ...downstreams.map(
      (downstream) =>
        byDownstream.totals.find((row) => row.group === downstream.name) ?? { ...NO_CALLS, group: downstream.name },
    ),
    ...byDownstream.totals.filter((row) => !configured.has(row.group ?? '')),
  ];
  return (
    <Page title="Downstreams" session={{ section: 'downstreams', csrfToken }}>
      <RangePicker range={range} action="/dashboard/downstreams" />
      {problem ? (
        <p class="alert">{problem}</p>
      ) : (
        <GroupTable caption="Calls per downstream" rows={rows} name={downstreamLink} splitErrors limit={rows.length} />
      )}
      <section class="card">
        <h3>Circuit breakers</h3>
        <ul>
          {downstreams.map((downstream) => (
            <li data-downstream={downstream.name}>
              {downstreamLink(downstream.name)}{' '}
              <Badge health={BREAKER_TEXT[downstream.breaker][0]}>{downstream.breaker}</Badge>{' '}
              <span class="hint">{BREAKER_TEXT[downstream.breaker][1]}</span>
            </li>
          ))}
        </ul>
      </section>
    </Page>
  );
}

const NO_CALLS: UsageFigures = {
  calls: 0,
  tokens: 0,
  cacheHits: 0,
  errors: 0,
  outcomes: { success: 0, refusal: 0, 'agent-mistake': 0, 'downstream-failure': 0, 'gateway-failure': 0, cancelled: 0 },
  latencyMs: { average: null, p50: null, p95: null },
};
