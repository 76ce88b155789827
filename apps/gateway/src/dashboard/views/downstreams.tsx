import type { BreakerState } from '@tollgate/gateway-core';
import { readFailureReason } from '../../registry/downstream-health.js';
import type { DownstreamStatus } from '../../registry/tool-catalog.js';
import { Badge, Time, type Health } from './parts.js';

/** One downstream as the overview and the tool library show it. */
export interface DownstreamView extends DownstreamStatus {
  breaker: BreakerState;
}

export const BREAKER_TEXT: Record<BreakerState, [health: Health, text: string]> = {
  closed: ['ok', 'closed: calls reach the downstream'],
  'half-open': ['warn', 'half-open: one probe call decides'],
  open: ['danger', 'open: calls fail fast until the break ends'],
};

/** How many left-out definitions (an OpenAPI document's skipped operations, say) are listed, each with why. */
const LISTED_PROBLEMS = 50;

/**
 * Breaker state, tools served and last load of one downstream. Why an OpenAPI
 * document's read failed is shown as readiness shows it (addresses taken
 * out); why a `/gw/schema` read failed stays in the log (it names the URL).
 */
export function DownstreamSummary({ downstream }: { downstream: DownstreamView }) {
  const [breakerHealth, breakerText] = BREAKER_TEXT[downstream.breaker];
  const refused = downstream.problems.length + downstream.collisions.length;
  return (
    <>
      <Badge health={breakerHealth}>{downstream.breaker}</Badge> <span class="hint">{breakerText}</span>
      {downstream.loaded ? (
        <p class="hint">
          <a href="/dashboard/tools">{downstream.toolCount === 1 ? '1 tool' : `${downstream.toolCount} tools`}</a>
          {downstream.prefix !== '' && ` · prefix ${downstream.prefix}_`} · loaded{' '}
          <Time iso={downstream.loadedAt as string} />
          {refused > 0 && ` · ${refused} definitions left out`}
        </p>
      ) : (
        <p>
          <Badge health="warn">tools not loaded yet</Badge>
        </p>
      )}
      {downstream.lastError && (
        <p class="hint">
          last read of {downstream.readsOpenApi ? 'its OpenAPI document' : '/gw/schema'} failed{' '}
          <Time iso={downstream.lastError.at} />
          {downstream.readsOpenApi && `: ${readFailureReason(downstream.lastError.message)}`}
          {downstream.loaded && '; serving the last good tools'}
        </p>
      )}
      {downstream.problems.length > 0 && (
        <details class="hint">
          <summary>
            {downstream.problems.length === 1
              ? '1 definition left out'
              : `${downstream.problems.length} definitions left out`}
            : why
          </summary>
          <ul>
            {downstream.problems.slice(0, LISTED_PROBLEMS).map((problem) => (
              <li class="mono">{problem}</li>
            ))}
            {downstream.problems.length > LISTED_PROBLEMS && (
              <li>and {downstream.problems.length - LISTED_PROBLEMS} more in the log</li>
            )}
          </ul>
        </details>
      )}
      {downstream.collisions.map((collision) => (
        <p class="hint">
          tool <span class="mono">{collision.tool}</span> refused: downstream {collision.servedBy} serves that name
        </p>
      ))}
    </>
  );
}

/** The downstreams as table rows, one each, named in the header cell. */
export function DownstreamRows({ downstreams }: { downstreams: readonly DownstreamView[] }) {
  return (
    <>
      {downstreams.map((downstream) => (
        <tr data-downstream={downstream.name}>
          <th scope="row">
            Downstream <span class="mono">{downstream.name}</span>
          </th>
          <td>
            <DownstreamSummary downstream={downstream} />
          </td>
        </tr>
      ))}
    </>
  );
}
