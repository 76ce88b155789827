import type { Child } from 'hono/jsx';
import type { ReadinessReport } from '../../health/readiness.js';
import type { HourStats } from '../overview-stats.js';
import type { Shown } from '../store-reads.js';
import { DownstreamRows, type DownstreamView } from './downstreams.js';
import { Page } from './layout.js';
import { Badge, formatNumber, Time, type Health } from './parts.js';

export interface OverviewProps {
  csrfToken: string;
  readiness: ReadinessReport;
  /** Each downstream: its breaker, tools served and last load. */
  downstreams: DownstreamView[];
  /** The last hour's figures, or why they cannot be shown now. */
  stats: Shown<HourStats>;
  /** Agent labels by id, for the top-agents table. */
  labels: Map<string, string>;
  /** The usage charts over the chosen range. */
  usage: Child;
}

const STATUS_HEALTH: Record<ReadinessReport['status'], Health> = {
  Healthy: 'ok',
  Degraded: 'warn',
  Unhealthy: 'danger',
};

export function OverviewPage({ csrfToken, readiness, downstreams, stats, labels, usage }: OverviewProps) {
  return (
    <Page title="Overview" session={{ section: 'overview', csrfToken }}>
      {usage}
      {stats.problem === undefined ? (
        <LastHour stats={stats.value} />
      ) : (
        <section aria-labelledby="hour-heading">
          <h2 id="hour-heading">Last hour</h2>
          <p class="alert">{stats.problem}</p>
        </section>
      )}

      <div class="panels">
        <section class="card" aria-labelledby="health-heading">
          <h2 id="health-heading">Health</h2>
          <table>
            <tbody>
              <tr>
                <th scope="row">Readiness</th>
                <td>
                  <Badge health={STATUS_HEALTH[readiness.status]}>{readiness.status}</Badge>
                </td>
              </tr>
              {Object.entries(readiness.components).map(([name, component]) => (
                <tr>
                  <th scope="row">{name}</th>
                  <td>
                    <Badge health={STATUS_HEALTH[component.status]}>{component.status}</Badge>
                    {'description' in component && <p class="hint">{component.description}</p>}
                  </td>
                </tr>
              ))}
              <DownstreamRows downstreams={downstreams} />
            </tbody>
          </table>
        </section>

        <section class="card" aria-labelledby="top-heading">
          <h2 id="top-heading">Top agents by tokens</h2>
          {stats.problem === undefined ? (
            <TopAgents stats={stats.value} labels={labels} />
          ) : (
            <p class="muted">Not shown: the last hour cannot be read now.</p>
          )}
        </section>
      </div>
    </Page>
  );
}

function LastHour({ stats }: { stats: HourStats }) {
  return (
    <section aria-labelledby="hour-heading">
      <h2 id="hour-heading">
        Last hour{' '}
        <span class="muted">
          (since <Time iso={stats.since.toISOString()} />)
        </span>
      </h2>
      <dl class="stats">
        <div class="stat">
          <dt>Tool calls</dt>
          <dd>{formatNumber(stats.calls)}</dd>
        </div>
        <div class="stat">
          <dt>Errors</dt>
          <dd>{formatNumber(stats.errors)}</dd>
        </div>
        <div class="stat">
          <dt>Tokens charged</dt>
          <dd>{formatNumber(stats.tokens)}</dd>
        </div>
      </dl>
      {!stats.complete && <p class="hint">Busy hour: these figures cover the most recent audit records only.</p>}
    </section>
  );
}

function TopAgents({ stats, labels }: { stats: HourStats; labels: Map<string, string> }) {
  return stats.topAgents.length === 0 ? (
    <p class="muted">No tool calls in the last hour.</p>
  ) : (
    <table>
      <thead>
        <tr>
          <th scope="col">Agent</th>
          <th scope="col">Calls</th>
          <th scope="col">Tokens</th>
        </tr>
      </thead>
      <tbody>
        {stats.topAgents.map((usage) => (
          <tr>
            <td>
              {labels.has(usage.agentId) ? (
                <a href={`/dashboard/agents/${usage.agentId}`}>{labels.get(usage.agentId)}</a>
              ) : (
                <span class="mono">{usage.agentId}</span>
              )}
            </td>
            <td>{formatNumber(usage.calls)}</td>
            <td>{formatNumber(usage.tokens)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
