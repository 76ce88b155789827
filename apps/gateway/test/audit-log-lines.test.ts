import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControlledDownstream } from './support/controlled-downstream.js';
import { createAgentWithToken, mcpRaw, openRawSession } from './support/mcp.js';
import { startPair, type Pair } from './support/pair.js';
import { eventually } from './support/processes.js';

const CALLS = 24;

interface AuditLine {
  msg: string;
  requestId?: string;
  audit: { kind: string; requestId: string | null; agentId: string | null };
}

/**
 * Issue 25, finding 16: an audit log line's top-level `requestId` (the one
 * the access line and every other line of the request carry) is the
 * record's own, even when many calls' records are written in one batch.
 */
describe('audit log lines under concurrent calls (dist/main.js, controlled downstream)', () => {
  let pair: Pair<ControlledDownstream>;

  beforeAll(async () => {
    pair = await startPair({ downstream: 'controlled', gateway: { env: { Gw__Cache__Enabled: 'false' } } });
  });
  afterAll(() => pair?.stop());

  it('names, on each audit line, the request the record belongs to', async () => {
    const agent = await createAgentWithToken(pair.api, await pair.adminToken(), { label: 'many-lines', dailyTokenBudget: 1_000_000 });
    const { sessionId } = await openRawSession(pair.url, agent.token);
    // Answered together, so their records share the trail's batches.
    pair.downstream.delayMs = 200;
    const replies = await Promise.all(
      Array.from({ length: CALLS }, (_, i) =>
        mcpRaw(pair.url, { jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'get_item', arguments: { id: i } } }, { token: agent.token, sessionId, headers: { 'X-Request-Id': `line-${i}` } }),
      ),
    );
    expect(replies.map((reply) => reply.status)).toEqual(Array(CALLS).fill(200));

    const auditLines = () =>
      pair.gateway
        .output()
        .split('\n')
        .filter((line) => line.includes('"msg":"audit"'))
        .map((line) => JSON.parse(line) as AuditLine)
        .filter((line) => line.audit.kind === 'tool-call' && line.audit.agentId === agent.agentId);
    const lines = await eventually(async () => auditLines(), (found) => found.length >= CALLS);
    expect(lines.map((line) => line.audit.requestId).sort()).toEqual(Array.from({ length: CALLS }, (_, i) => `line-${i}`).sort());
    const wrong = lines.filter((line) => line.requestId !== line.audit.requestId).map((line) => `${line.requestId} on ${line.audit.requestId}`);
    expect(wrong).toEqual([]);
  });
});
