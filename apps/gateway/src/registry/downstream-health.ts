import type { BreakerState } from '@tollgate/gateway-core';
import type { DownstreamStatus } from './tool-catalog.js';

/**
 * One downstream in the readiness report. Healthy: its tools are loaded,
 * every one it declares is served, its last schema read worked and its
 * circuit is closed. Degraded: anything less while the gateway still serves
 * tools (its own or others'). Unhealthy: no downstream's tools are loaded.
 * Descriptions name no address: the report is served without credentials.
 */
export type DownstreamHealth = { status: 'Healthy' } | { status: 'Degraded' | 'Unhealthy'; description: string };

export interface DownstreamsHealth {
  /** Some downstream's tools are loaded: /mcp can serve. */
  servable: boolean;
  /** By readiness component name, `downstream:<name>`. */
  components: Record<`downstream:${string}`, DownstreamHealth>;
}

export interface JudgeOptions {
  breakerState: (downstream: string) => BreakerState | undefined;
  /**
   * List only downstreams that are not Healthy: the single-key form, whose
   * healthy report stays contract 2.6's two components exactly.
   */
  onlyUnhealthy?: boolean;
}

const BREAKER_ISSUE: Record<Exclude<BreakerState, 'closed'>, string> = {
  open: 'circuit open: its calls fail fast until the break ends',
  'half-open': 'circuit half-open: one probe call decides',
};

export function judgeDownstreams(statuses: readonly DownstreamStatus[], { breakerState, onlyUnhealthy = false }: JudgeOptions): DownstreamsHealth {
  const servable = statuses.some((status) => status.loaded);
  const components: DownstreamsHealth['components'] = {};
  for (const status of statuses) {
    const health = judgeOne(status, breakerState(status.name) ?? 'closed', servable);
    if (!onlyUnhealthy || health.status !== 'Healthy') components[`downstream:${status.name}`] = health;
  }
  return { servable, components };
}

function judgeOne(status: DownstreamStatus, breaker: BreakerState, servable: boolean): DownstreamHealth {
  const bad = servable ? 'Degraded' : 'Unhealthy';
  if (!status.loaded) {
    const why = status.lastError ? `its /gw/schema could not be read (last try ${status.lastError.at})` : 'its /gw/schema is being read';
    return { status: bad, description: `tools not loaded: ${why}` };
  }
  const issues = [
    breaker === 'closed' ? null : BREAKER_ISSUE[breaker],
    status.lastError ? `the last read of its /gw/schema failed (${status.lastError.at}); serving the tools read ${status.loadedAt}` : null,
    status.problems.length > 0 ? `${status.problems.length} tool definitions left out` : null,
    ...status.collisions.map(({ tool, servedBy }) => `tool "${tool}" refused: downstream ${servedBy} serves a tool of that name`),
  ].filter((issue) => issue !== null);
  if (issues.length === 0) return { status: 'Healthy' };
  return { status: 'Degraded', description: `${status.toolCount} tools served; ${issues.join('; ')}` };
}
