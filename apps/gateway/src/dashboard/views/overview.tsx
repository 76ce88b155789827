import type { BreakerState } from '@tollgate/gateway-core';
import type { ReadinessReport } from '../../readiness.js';
import type { CatalogLoad } from '../../registry/tool-catalog.js';
import type { HourStats } from '../overview-stats.js';
import { Page } from './layout.js';
import { Badge, formatNumber, Time } from './parts.js';

export interface OverviewProps {
  csrfToken: string;
  readiness: ReadinessReport;
  breaker: BreakerState;
  stats: HourStats;
  toolLoad: CatalogLoad | undefined;
  /** Agent labels by id, for the top-agents table. */
  labels: Map<string, string>;
}

const BREAKER_TEXT: Record<BreakerState, [health: 'ok' | 'warn' | 'danger', text: string]> = {
  closed: ['ok', 'closed: calls reach the downstream'],
  'half-open': ['warn', 'half-open: one probe call decides'],
  open: ['danger', 'open: calls fail fast until the break ends'],
};

export function OverviewPage({ csrfToken, readiness, breaker, stats, toolLoad, labels }: OverviewProps) {
  const [breakerHealth, breakerText] = BREAKER_TEXT[breaker];
  return (
    <Page title="Overview" session={{ section: 'overview', csrfToken }}>
      <section aria-labelledby="hour-heading">
        <h2 id="hour-heading">
          Last hour <span class="muted">(since <Time iso={stats.since.toISOString()} />)</span>
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

      <div class="panels">
        <section class="card" aria-labelledby="health-heading">
          <h2 id="health-heading">Health</h2>
          <table>
            <tbody>
              <tr>
                <th scope="row">Readiness</th>
                <td>
                  <Badge health={readiness.status === 'Healthy' ? 'ok' : 'danger'}>{readiness.status}</Badge>
                </td>
              </tr>
              {Object.entries(readiness.components).map(([name, component]) => (
                <tr>
                  <th scope="row">{name}</th>
                  <td>
                    <Badge health={component.status === 'Healthy' ? 'ok' : 'danger'}>{component.status}</Badge>
                    {'description' in component && <p class="hint">{component.description}</p>}
                  </td>
                </tr>
              ))}
              <tr>
                <th scope="row">Downstream breaker</th>
                <td>
                  <Badge health={breakerHealth}>{breaker}</Badge>
                  <p class="hint">{breakerText}</p>
                </td>
              </tr>
              <tr>
                <th scope="row">Tools</th>
                <td>
                  {toolLoad ? (
                    <>
                      <a href="/dashboard/tools">{toolLoad.tools.length} tools</a>
                      <p class="hint">
                        loaded <Time iso={toolLoad.loadedAt} />
                        {toolLoad.problems.length > 0 && ` · ${toolLoad.problems.length} definitions left out`}
                      </p>
                    </>
                  ) : (
                    <Badge health="warn">not loaded yet</Badge>
                  )}
                </td>
              </tr>
            </tbody>
          </table>
        </section>

        <section class="card" aria-labelledby="top-heading">
          <h2 id="top-heading">Top agents by tokens</h2>
          {stats.topAgents.length === 0 ? (
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
          )}
        </section>
      </div>
    </Page>
  );
}
