import type { AuditLog, AuditRecord } from '@tollgate/gateway-core/store';

const HOUR_MS = 60 * 60 * 1000;
const PAGE_SIZE = 500;
/** Bounds the work of one overview page load on a busy gateway; past it the figures are marked partial. */
export const MAX_SCANNED_RECORDS = 5_000;
const TOP_AGENTS = 5;

/** Outcomes of a call that did its job; everything else counts as an error. */
const SUCCESSFUL = new Set(['ok', 'cache-hit']);

export interface AgentUsage {
  agentId: string;
  calls: number;
  tokens: number;
}

export interface HourStats {
  since: Date;
  calls: number;
  errors: number;
  tokens: number;
  /** By tokens charged, most first. */
  topAgents: AgentUsage[];
  /** False when the scan stopped at MAX_SCANNED_RECORDS before reaching the start of the hour. */
  complete: boolean;
}

/**
 * Tool calls of the last hour, read from the same audit trail as
 * `GET /management/audit`: newest first, page by page, until a record is
 * older than an hour or the scan bound is reached.
 */
export async function lastHourStats(
  log: AuditLog,
  now = new Date(),
  maxRecords = MAX_SCANNED_RECORDS,
): Promise<HourStats> {
  const since = new Date(now.getTime() - HOUR_MS);
  const stats = new HourCounter();
  let before: string | undefined;
  let scanned = 0;
  while (scanned < maxRecords) {
    const page = await log.query({ limit: Math.min(PAGE_SIZE, maxRecords - scanned), ...(before ? { before } : {}) });
    for (const record of page.records) {
      if (Date.parse(record.time) < since.getTime()) return stats.result(since, true);
      stats.add(record);
    }
    scanned += page.records.length;
    if (page.nextCursor === null || page.records.length === 0) return stats.result(since, true);
    before = page.nextCursor;
  }
  return stats.result(since, false);
}

class HourCounter {
  calls = 0;
  errors = 0;
  tokens = 0;
  readonly #byAgent = new Map<string, AgentUsage>();

  add(record: AuditRecord): void {
    if (record.kind !== 'tool-call') return;
    this.calls += 1;
    if (!SUCCESSFUL.has(record.outcome)) this.errors += 1;
    this.tokens += record.tokensCharged;
    if (record.agentId === null) return;
    const usage = this.#byAgent.get(record.agentId) ?? { agentId: record.agentId, calls: 0, tokens: 0 };
    usage.calls += 1;
    usage.tokens += record.tokensCharged;
    this.#byAgent.set(record.agentId, usage);
  }

  result(since: Date, complete: boolean): HourStats {
    const topAgents = [...this.#byAgent.values()]
      .sort((a, b) => b.tokens - a.tokens || b.calls - a.calls || a.agentId.localeCompare(b.agentId))
      .slice(0, TOP_AGENTS);
    return { since, calls: this.calls, errors: this.errors, tokens: this.tokens, topAgents, complete };
  }
}
