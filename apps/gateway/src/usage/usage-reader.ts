import {
  parseUsageQuery,
  usageReport,
  type AgentService,
  type UsageQueryParams,
  type UsageReport,
} from '@tollgate/gateway-core';
import type { UsageCell, UsageStore } from '@tollgate/gateway-core/store';

/** A usage report with the people's name of each agent it names (grouped by agent, or filtered to one). */
export interface LabelledUsageReport extends UsageReport {
  /** Agent id → label; '' (calls refused before the caller was known) and deleted agents get a description. */
  labels: Record<string, string>;
}

/** Only the calls of one tool or one downstream (the dashboard's tool and downstream pages). */
export interface UsageSubset {
  tool?: string;
  downstream?: string;
}

/** What calls made before anyone was signed in are called. */
export const NO_AGENT_LABEL = 'No agent (refused before sign-in)';

/**
 * Reads usage reports from the counters kept as calls happen: checks the
 * query (4xx on bad input), reads the range's cells once, adds agent labels.
 * The management API and the dashboard both ask here.
 */
export class UsageReader {
  constructor(
    private readonly usage: UsageStore,
    private readonly agents: AgentService,
    private readonly clock: () => number = Date.now,
  ) {}

  async report(params: UsageQueryParams): Promise<LabelledUsageReport> {
    return (await this.reports(params, [params.groupBy]))[0]!;
  }

  /**
   * One report per grouping (undefined: none) of one range, from one
   * read of the counters; `only`: one tool's or downstream's calls.
   */
  async reports(
    params: UsageQueryParams,
    groupings: ReadonlyArray<string | undefined>,
    only: UsageSubset = {},
  ): Promise<LabelledUsageReport[]> {
    const queries = groupings.map((groupBy) => parseUsageQuery({ ...params, groupBy }, this.clock()));
    const { from, to, agentId } = queries[0]!;
    const cells = (await this.usage.read({ from, to, ...(agentId !== undefined ? { agentId } : {}) })).filter((cell) =>
      inSubset(cell, only),
    );
    return Promise.all(
      queries.map(async (query) => {
        const report = usageReport(cells, query);
        const named =
          query.groupBy === 'agent'
            ? report.totals.map((total) => total.group ?? '')
            : query.agentId !== undefined
              ? [query.agentId]
              : [];
        return { ...report, labels: named.length === 0 ? {} : await this.labels(named) };
      }),
    );
  }

  /** Labels of the given agent ids, in one read of the agent list. */
  async labels(agentIds: readonly string[]): Promise<Record<string, string>> {
    const known = new Map((await this.agents.list()).map((agent) => [agent.agentId, agent.label]));
    return Object.fromEntries(
      agentIds.map((id) => [id, id === '' ? NO_AGENT_LABEL : (known.get(id) ?? `Deleted agent ${id}`)]),
    );
  }
}

function inSubset(cell: UsageCell, only: UsageSubset): boolean {
  return (
    (only.tool === undefined || cell.tool === only.tool) &&
    (only.downstream === undefined || cell.downstream === only.downstream)
  );
}
