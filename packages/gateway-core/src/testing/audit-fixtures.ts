import type { AuditEntry } from '../store/audit-records.js';

/** A successful tools/call record of `agt_x`, timed now, with `overrides`: what the store tests write. */
export function auditEntry(overrides: Partial<AuditEntry> = {}): AuditEntry {
  return {
    time: new Date().toISOString(),
    kind: 'tool-call',
    agentId: 'agt_x',
    sessionId: null,
    tool: 'search',
    outcome: 'ok',
    httpStatus: 200,
    jsonRpcCode: null,
    tokensCharged: 0,
    gatewayMs: null,
    downstreamMs: null,
    cacheTier: null,
    downstreamStatus: null,
    argsDigest: null,
    actor: null,
    requestId: null,
    detail: null,
    ...overrides,
  };
}
