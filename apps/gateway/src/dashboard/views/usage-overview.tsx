import type { UsageFigures } from '@tollgate/gateway-core';
import { OUTCOME_CLASS_LABELS, OUTCOME_CLASSES } from '@tollgate/gateway-core/internal';
import type { LabelledUsageReport } from '../../usage/usage-reader.js';
import { RANGES, type UsageRangeChoice } from '../usage-range.js';
import { formatNumber } from './parts.js';
import { BarChart } from './usage-chart.js';

export interface UsageOverviewProps {
  range: UsageRangeChoice;
  /** Ungrouped: one bucket per hour or day. */
  overall: LabelledUsageReport;
  byAgent: LabelledUsageReport;
  byTool: LabelledUsageReport;
  byDownstream: LabelledUsageReport;
  byOutcome: LabelledUsageReport;
  /** Set when the range could not be read (a bad custom range, the store unavailable): why, instead of the charts. */
  problem?: string | undefined;
}

/** People's words for the outcomes a refusal or mistake can have. */
const OUTCOME_LABELS: Record<string, string> = {
  ok: 'Succeeded',
  'cache-hit': 'Answered from the cache',
  'budget-exhausted': 'Refused: budget spent',
  'rate-limited': 'Refused: rate limit',
  'too-many-calls': 'Refused: too many calls at once',
  forbidden: 'Refused: missing scope',
  'not-allowlisted': 'Refused: tool not allowed',
  'write-blocked': 'Refused: write blocked',
  unauthorized: 'Refused: not signed in',
  'unknown-tool': 'Agent mistake: unknown tool',
  'invalid-arguments': 'Agent mistake: invalid arguments',
  'invalid-request': 'Agent mistake: invalid request',
  'downstream-error': 'Downstream failed',
  'circuit-open': 'Downstream paused (circuit open)',
  overloaded: 'Downstream overloaded',
  'store-unavailable': 'Gateway: store unavailable',
  unavailable: 'Gateway: not ready',
  'internal-error': 'Gateway: internal error',
  'client-gone': 'Cancelled by the client',
};

export const outcomeLabel = (outcome: string) => OUTCOME_LABELS[outcome] ?? outcome;

const percent = (part: number, whole: number) => (whole === 0 ? '–' : `${Math.round((part / whole) * 1000) / 10}%`);
const ms = (value: number | null) => (value === null ? '–' : `${formatNumber(value)} ms`);

export function RangePicker({ range, action }: { range: UsageRangeChoice; action: string }) {
  return (
    <nav class="ranges" aria-label="Range">
      {Object.entries(RANGES).map(([name, { label }]) => (
        <a href={`${action}?range=${name}`} aria-current={range.name === name ? 'true' : undefined}>
          {label}
        </a>
      ))}
      <form method="get" action={action} class="ranges">
        <input type="hidden" name="range" value="custom" />
        <label>
          From (UTC) <input type="datetime-local" name="from" value={range.from} required />
        </label>
        <label>
          To (UTC) <input type="datetime-local" name="to" value={range.to} />
        </label>
        <button type="submit" class="secondary">
          Show
        </button>
      </form>
    </nav>
  );
}

export function Totals({ figures }: { figures: UsageFigures }) {
  return (
    <dl class="stats">
      <div class="stat">
        <dt>Tool calls</dt>
        <dd>{formatNumber(figures.calls)}</dd>
      </div>
      <div class="stat">
        <dt>Tokens charged</dt>
        <dd>{formatNumber(figures.tokens)}</dd>
      </div>
      <div class="stat">
        <dt>Errors</dt>
        <dd>{formatNumber(figures.errors)}</dd>
      </div>
      <div class="stat">
        <dt>Cache hit rate</dt>
        <dd>{percent(figures.cacheHits, figures.calls)}</dd>
      </div>
      <div class="stat">
        <dt>Latency p50 / p95</dt>
        <dd>
          {ms(figures.latencyMs.p50)} / {ms(figures.latencyMs.p95)}
        </dd>
      </div>
    </dl>
  );
}

/**
 * Where a class of errors shows in a table split by class: what the gateway refused, what the agent got wrong, what
 * failed downstream or in the gateway.
 */
const ERROR_CLASSES = ['refusal', 'agent-mistake', 'downstream-failure', 'gateway-failure'] as const;
const ERROR_CLASS_HEADINGS: Record<(typeof ERROR_CLASSES)[number], string> = {
  refusal: 'Refused',
  'agent-mistake': 'Agent mistakes',
  'downstream-failure': 'Downstream failures',
  'gateway-failure': 'Gateway failures',
};

/**
 * A table of groups (agents, tools, downstreams) with calls, errors, tokens
 * and latency; `splitErrors`: the errors in a column per class, as the
 * overview's "How calls ended" splits them; `limit`: the first rows only.
 */
export function GroupTable({
  caption,
  rows,
  name,
  splitErrors = false,
  limit = 10,
}: {
  caption: string;
  rows: Array<UsageFigures & { group?: string }>;
  name: (group: string) => unknown;
  splitErrors?: boolean;
  limit?: number;
}) {
  return (
    <section class="card">
      <h3>{caption}</h3>
      {rows.length === 0 ? (
        <p class="muted">No tool calls in this range.</p>
      ) : (
        <div class="table-scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Calls</th>
                {splitErrors ? (
                  ERROR_CLASSES.map((errorClass) => <th scope="col">{ERROR_CLASS_HEADINGS[errorClass]}</th>)
                ) : (
                  <th scope="col">Errors</th>
                )}
                <th scope="col">Tokens</th>
                <th scope="col">p50 / p95</th>
              </tr>
            </thead>
            <tbody>
              {rows.slice(0, limit).map((row) => (
                <tr data-group={row.group ?? ''}>
                  <td>{name(row.group ?? '')}</td>
                  <td>{formatNumber(row.calls)}</td>
                  {splitErrors ? (
                    ERROR_CLASSES.map((errorClass) => <td>{formatNumber(row.outcomes[errorClass])}</td>)
                  ) : (
                    <td>{formatNumber(row.errors)}</td>
                  )}
                  <td>{formatNumber(row.tokens)}</td>
                  <td>
                    {ms(row.latencyMs.p50)} / {ms(row.latencyMs.p95)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/**
 * How the calls of a range ended: per outcome class (errors split into refusals, agent mistakes, downstream and gateway
 * failures), then per outcome.
 */
export function OutcomeTables({
  total,
  byOutcome,
}: {
  total: UsageFigures | undefined;
  byOutcome: LabelledUsageReport;
}) {
  return (
    <section class="card">
      <h3>How calls ended</h3>
      <table>
        <tbody>
          {OUTCOME_CLASSES.map((name) => (
            <tr data-outcome-class={name}>
              <th scope="row">{OUTCOME_CLASS_LABELS[name]}</th>
              <td>{formatNumber(total?.outcomes[name] ?? 0)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h3>By outcome</h3>
      <table>
        <tbody>
          {byOutcome.totals.map((row) => (
            <tr>
              <th scope="row">{outcomeLabel(row.group ?? '')}</th>
              <td>{formatNumber(row.calls)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/** A tool's name linking to its usage page ('' = calls that named no known tool). */
export function toolLink(tool: string) {
  return tool === '' ? (
    'No known tool'
  ) : (
    <a class="mono" href={toolUsageHref(tool)}>
      {tool}
    </a>
  );
}

/** A downstream's name linking to its usage page ('' = calls refused before a tool, so a downstream, was found). */
export function downstreamLink(name: string) {
  return name === '' ? (
    'None (refused before a tool was found)'
  ) : (
    <a class="mono" href={`/dashboard/downstreams/${encodeURIComponent(name)}`}>
      {name}
    </a>
  );
}

export const toolUsageHref = (tool: string) => `/dashboard/tools/${encodeURIComponent(tool)}`;

export function UsageOverview(props: UsageOverviewProps) {
  const { range, overall, byAgent, byTool, byDownstream, byOutcome } = props;
  const interval = overall.interval;
  const total = overall.totals[0]!;
  const series = (pick: (bucket: UsageFigures) => number) =>
    overall.buckets.map((bucket) => ({ start: bucket.start, value: pick(bucket) }));
  return (
    <section aria-labelledby="usage-heading">
      <h2 id="usage-heading">Usage</h2>
      <RangePicker range={range} action="/dashboard" />
      {props.problem ? (
        <p class="alert">{props.problem}</p>
      ) : (
        <>
          <Totals figures={total} />
          <div class="panels">
            <BarChart id="calls" title="Tool calls" points={series((b) => b.calls)} interval={interval} />
            <BarChart id="tokens" title="Tokens charged" points={series((b) => b.tokens)} interval={interval} />
            <BarChart id="errors" title="Errors" points={series((b) => b.errors)} interval={interval} tone="errors" />
            <BarChart
              id="latency"
              title="Latency p95 (ms)"
              points={series((b) => b.latencyMs.p95 ?? 0)}
              interval={interval}
            />
          </div>
          <div class="panels">
            <OutcomeTables total={total} byOutcome={byOutcome} />
            <GroupTable
              caption="Top agents"
              rows={byAgent.totals}
              name={(id) =>
                id === '' ? byAgent.labels[id] : <a href={`/dashboard/agents/${id}`}>{byAgent.labels[id] ?? id}</a>
              }
            />
            <GroupTable caption="Top tools" rows={byTool.totals} name={toolLink} />
            <GroupTable caption="Downstreams" rows={byDownstream.totals} name={downstreamLink} />
          </div>
        </>
      )}
    </section>
  );
}
