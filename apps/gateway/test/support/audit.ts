import type { GatewayClient } from './gateway-client.js';

export interface AuditRecordJson {
  id: string;
  kind: string;
  agentId: string | null;
  tool: string | null;
  outcome: string;
  httpStatus: number | null;
  jsonRpcCode: number | null;
  tokensCharged: number;
  requestId?: string | null;
  callId?: string;
  /** `call_tool` for a call an agent in search mode made through it. */
  via?: string;
}

/** Every audit record of one agent (all pages), newest first. */
export async function agentAudit(api: GatewayClient, admin: string, agentId: string): Promise<AuditRecordJson[]> {
  const records: AuditRecordJson[] = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor === null ? '' : `&before=${encodeURIComponent(cursor)}`;
    const page = await api.request('GET', `/management/agents/${agentId}/audit?limit=100${query}`, admin);
    if (page.status !== 200) throw new Error(`audit: ${page.status} ${JSON.stringify(page.body)}`);
    records.push(...page.body.records);
    cursor = page.body.nextCursor;
  } while (cursor !== null);
  return records;
}

/** How many records end in each outcome. */
export function countOutcomes(records: AuditRecordJson[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const record of records) counts[record.outcome] = (counts[record.outcome] ?? 0) + 1;
  return counts;
}
