import {
  checkAuditQuery,
  type AgentRecord,
  type AuditLog,
  type AuditQuery,
  type AuditRecord,
} from '@tollgate/gateway-core/store';

/** An export reads at most this many records (newest first): one request never walks the whole trail. */
export const MAX_EXPORT_RECORDS = 10_000;
const PAGE = 500;

/** The columns of the CSV export, in order: every field a record always has, then the optional ones. */
const CSV_COLUMNS = [
  'id',
  'time',
  'kind',
  'agentId',
  'agentLabel',
  'sessionId',
  'tool',
  'downstream',
  'outcome',
  'httpStatus',
  'jsonRpcCode',
  'tokensCharged',
  'gatewayMs',
  'downstreamMs',
  'cacheTier',
  'downstreamStatus',
  'argsDigest',
  'actor',
  'requestId',
  'callId',
  'issuer',
  'subject',
  'detail',
] as const;

export interface ExportFilters {
  agentId?: string;
  tool?: string;
  outcome?: string;
  /** Epoch ms, inclusive; records older are not read. */
  from?: number;
  /** Epoch ms, exclusive. */
  to?: number;
}

/**
 * The agent a filter names: an agent id as it is, or the label of exactly one
 * agent (people know agents by label); anything else is passed on and matches nothing.
 */
export function agentIdOf(value: string, agents: readonly Pick<AgentRecord, 'agentId' | 'label'>[]): string {
  if (value === '' || agents.some((agent) => agent.agentId === value)) return value;
  const named = agents.filter((agent) => agent.label === value);
  return named.length === 1 ? named[0]!.agentId : value;
}

/**
 * A CSV field: quoted when it holds a comma, quote or line break; a
 * leading =, +, -, @ is defused so a spreadsheet shows it as text.
 */
function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (/^[=+\-@]/.test(text) && typeof value === 'string') text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * The filtered records as JSON Lines or CSV, streamed page by page (newest
 * first), stopping at `from`, at the end of the trail or at MAX_EXPORT_RECORDS.
 */
export function exportStream(
  log: AuditLog,
  filters: ExportFilters,
  format: 'jsonl' | 'csv',
  labels: ReadonlyMap<string, string>,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const base: AuditQuery = {
    limit: PAGE,
    ...(filters.agentId ? { agentId: filters.agentId } : {}),
    ...(filters.tool ? { tool: filters.tool } : {}),
    ...(filters.outcome ? { outcome: filters.outcome } : {}),
  };
  checkAuditQuery(base);
  let cursor: string | null | undefined;
  let sent = 0;
  let header = format === 'csv';
  const line = (record: AuditRecord) => {
    const labelled = { ...record, agentLabel: record.agentId === null ? null : (labels.get(record.agentId) ?? null) };
    return format === 'jsonl'
      ? `${JSON.stringify(labelled)}\n`
      : `${CSV_COLUMNS.map((column) => csvField((labelled as Record<string, unknown>)[column])).join(',')}\r\n`;
  };
  return new ReadableStream({
    async pull(controller) {
      if (header) {
        header = false;
        controller.enqueue(encoder.encode(`${CSV_COLUMNS.join(',')}\r\n`));
        return;
      }
      if (cursor === null || sent >= MAX_EXPORT_RECORDS) return controller.close();
      const page = await log.query(cursor === undefined ? base : { ...base, before: cursor });
      cursor = page.nextCursor;
      let text = '';
      for (const record of page.records) {
        const at = Date.parse(record.time);
        if (filters.from !== undefined && at < filters.from) {
          cursor = null;
          break;
        }
        if (filters.to !== undefined && at >= filters.to) continue;
        if (sent >= MAX_EXPORT_RECORDS) break;
        text += line(record);
        sent++;
      }
      if (text !== '') controller.enqueue(encoder.encode(text));
      else if (cursor === null) controller.close();
    },
  });
}
