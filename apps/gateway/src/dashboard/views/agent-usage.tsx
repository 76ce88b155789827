import type { BudgetView } from '@tollgate/gateway-core';
import type { LabelledUsageReport } from '../../usage/usage-reader.js';
import { projectedExhaustion } from '../agent-usage.js';
import { formatNumber, Time } from './parts.js';
import { BarChart } from './usage-chart.js';

export interface AgentUsageProps {
  budget: BudgetView;
  /** The last 30 days by day. */
  history: LabelledUsageReport;
  /** The last 7 days by hour, for when it was last seen. */
  recent: LabelledUsageReport;
  /** Tokens issued to it (audit `agent.token-issued`), and the latest. */
  tokensIssued: { count: number; latest: string | null; more: boolean };
  now: number;
}

/** An agent's spend against today's budget, when it will run out at today's pace, and its history. */
export function AgentUsage({ budget, history, recent, tokensIssued, now }: AgentUsageProps) {
  const runsOut = projectedExhaustion(budget, now);
  const lastSeen = [...recent.buckets].reverse().find((bucket) => bucket.calls > 0);
  return (
    <section class="card" aria-labelledby="agent-usage-heading">
      <h2 id="agent-usage-heading">Usage</h2>
      <dl class="stats">
        <div class="stat">
          <dt>Spent today</dt>
          <dd>
            {formatNumber(budget.used)} of {formatNumber(budget.dailyTokenBudget)}
          </dd>
        </div>
        <div class="stat">
          <dt>Runs out at today's pace</dt>
          <dd>
            {runsOut === null ? (
              'Nothing spent today'
            ) : runsOut.getTime() >= Date.parse(budget.resetsAt) ? (
              'Not before the reset'
            ) : (
              <Time iso={runsOut.toISOString()} />
            )}
          </dd>
        </div>
        <div class="stat">
          <dt>Last seen</dt>
          <dd>
            {lastSeen ? (
              <>
                hour of <Time iso={lastSeen.start} />
              </>
            ) : (
              'Not in the last 7 days'
            )}
          </dd>
        </div>
        <div class="stat">
          <dt>Tokens issued</dt>
          <dd>
            {formatNumber(tokensIssued.count)}
            {tokensIssued.more ? '+' : ''}
            {tokensIssued.latest && (
              <span class="hint">
                {' '}
                latest <Time iso={tokensIssued.latest} />
              </span>
            )}
          </dd>
        </div>
      </dl>
      <div class="panels">
        <BarChart
          id="agent-tokens"
          title="Tokens charged per day"
          points={history.buckets.map((b) => ({ start: b.start, value: b.tokens }))}
          interval="day"
        />
        <BarChart
          id="agent-calls"
          title="Calls per day"
          points={history.buckets.map((b) => ({ start: b.start, value: b.calls }))}
          interval="day"
        />
      </div>
    </section>
  );
}
