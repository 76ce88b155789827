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
  /** What a downstream's tools are read from (`/gw/schema`, or its `OpenAPI document`). */
  schemaOf?: (downstream: string) => string;
}

/** How many left-out definitions readiness names; the log has every one. */
const LISTED_PROBLEMS = 5;

const BREAKER_ISSUE: Record<Exclude<BreakerState, 'closed'>, string> = {
  open: 'circuit open: its calls fail fast until the break ends',
  'half-open': 'circuit half-open: one probe call decides',
};

export function judgeDownstreams(
  statuses: readonly DownstreamStatus[],
  { breakerState, onlyUnhealthy = false, schemaOf = () => '/gw/schema' }: JudgeOptions,
): DownstreamsHealth {
  const servable = statuses.some((status) => status.loaded);
  const components: DownstreamsHealth['components'] = {};
  for (const status of statuses) {
    const health = judgeOne(status, breakerState(status.name) ?? 'closed', servable, schemaOf(status.name));
    if (!onlyUnhealthy || health.status !== 'Healthy') components[`downstream:${status.name}`] = health;
  }
  return { servable, components };
}

function judgeOne(
  status: DownstreamStatus,
  breaker: BreakerState,
  servable: boolean,
  schema: string,
): DownstreamHealth {
  const bad = servable ? 'Degraded' : 'Unhealthy';
  if (!status.loaded) {
    const why = status.lastError
      ? `its ${schema} could not be read (last try ${status.lastError.at})${whyNot(status, schema)}`
      : `its ${schema} is being read`;
    return { status: bad, description: `tools not loaded: ${why}` };
  }
  const issues = [
    breaker === 'closed' ? null : BREAKER_ISSUE[breaker],
    status.lastError
      ? `the last read of its ${schema} failed (${status.lastError.at})${whyNot(status, schema)}; serving the ` +
        `tools read ${status.loadedAt}`
      : null,
    status.problems.length > 0
      ? `${status.problems.length} tool definitions left out: ${listed(status.problems)}`
      : null,
    ...status.collisions.map(
      ({ tool, servedBy }) => `tool "${tool}" refused: downstream ${servedBy} serves a tool of that name`,
    ),
  ].filter((issue) => issue !== null);
  if (issues.length === 0) return { status: 'Healthy' };
  return { status: 'Degraded', description: `${status.toolCount} tools served; ${issues.join('; ')}` };
}

function listed(problems: readonly string[]): string {
  const shown = problems.slice(0, LISTED_PROBLEMS).join(' | ');
  return problems.length > LISTED_PROBLEMS
    ? `${shown} | and ${problems.length - LISTED_PROBLEMS} more (see the log)`
    : shown;
}

function whyNot(status: DownstreamStatus, schema: string): string {
  const reason = schema === '/gw/schema' || !status.lastError ? null : readFailureReason(status.lastError.message);
  return reason === null ? '' : `: ${reason}`;
}

/**
 * Why an OpenAPI document could not be used (not valid YAML, Swagger 1.2,
 * too big), with anything like an address or a path taken out, for readiness
 * and the dashboard. A `/gw/schema` failure names its URL, so only the log
 * has it.
 */
export function readFailureReason(message: string): string {
  return message.replace(
    /[a-z][a-z0-9+.-]*:\/\/\S+|(?:\.{0,2}\/[^\s/:'"]+)+\/?|\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?/gi,
    '…',
  );
}
