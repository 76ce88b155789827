import { randomUUID } from 'node:crypto';
import type { GatewayClient } from './gateway-client.js';
import { mcpRaw, openRawSession, type McpExchange } from './mcp.js';
import { eventually } from './processes.js';

/** An audit record as GET /management/audit returns it. */
export interface AuditRecord {
  id: string;
  time: string;
  kind: 'tool-call' | 'management';
  agentId: string | null;
  sessionId: string | null;
  tool: string | null;
  outcome: string;
  httpStatus: number | null;
  jsonRpcCode: number | null;
  tokensCharged: number;
  gatewayMs: number | null;
  downstreamMs: number | null;
  cacheTier: 'exact' | 'semantic' | null;
  downstreamStatus: number | null;
  argsDigest: string | null;
  actor: string | null;
  detail: string | null;
  requestId: string | null;
}

export interface AuditedCall {
  reply: McpExchange;
  /** The one audit record carrying this call's request id. */
  record: AuditRecord;
  /** The text returned to the agent (successful calls only). */
  text: string | undefined;
}

export interface CallOptions {
  /** A session to reuse; by default each call opens its own. */
  sessionId?: string;
  /** Send this as the bearer token instead of the agent's (e.g. a forged one). */
  token?: string;
}

/**
 * One tools/call with its own X-Request-Id, and the audit record it produced,
 * found by that id (the trail is written off the hot path, so it is polled).
 * Fails unless exactly one record carries the id.
 */
export async function auditedCall(
  gatewayUrl: string,
  api: GatewayClient,
  admin: string,
  agentToken: string,
  name: string,
  args: Record<string, unknown>,
  options: CallOptions = {},
): Promise<AuditedCall> {
  const requestId = `call-${randomUUID()}`;
  const sessionId = options.sessionId ?? (await openRawSession(gatewayUrl, agentToken)).sessionId;
  const reply = await mcpRaw(
    gatewayUrl,
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
    { token: options.token ?? agentToken, sessionId, headers: { 'X-Request-Id': requestId } },
  );
  const record = await auditRecordOf(api, admin, requestId);
  return { reply, record, text: reply.status === 200 ? reply.message.result.content[0].text : undefined };
}

/** The single audit record of a request id among the newest 500 records. */
export async function auditRecordOf(api: GatewayClient, admin: string, requestId: string): Promise<AuditRecord> {
  const matches = await eventually(
    async () => {
      const page = await api.request('GET', '/management/audit?limit=500', admin);
      if (page.status !== 200) throw new Error(`audit: ${page.status} ${JSON.stringify(page.body)}`);
      return (page.body.records as AuditRecord[]).filter((record) => record.requestId === requestId);
    },
    (found) => found.length > 0,
    10_000,
  );
  // Give a second record, if there were one, the time to arrive before counting.
  await new Promise((resolve) => setTimeout(resolve, 50));
  const page = await api.request('GET', '/management/audit?limit=500', admin);
  const all = (page.body.records as AuditRecord[]).filter((record) => record.requestId === requestId);
  if (all.length !== 1)
    throw new Error(`expected one audit record for ${requestId}, found ${all.length}: ${JSON.stringify(all)}`);
  return matches[0]!;
}
