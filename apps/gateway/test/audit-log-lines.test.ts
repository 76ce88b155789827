import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControlledDownstream } from './support/controlled-downstream.js';
import { createAgentWithToken, mcpRaw, openRawSession } from './support/mcp.js';
import { startPair, type Pair } from './support/pair.js';
import { agentAudit } from './support/audit.js';
import { eventually, freePort } from './support/processes.js';

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
    const agent = await createAgentWithToken(pair.api, await pair.adminToken(), {
      label: 'many-lines',
      dailyTokenBudget: 1_000_000,
    });
    const { sessionId } = await openRawSession(pair.url, agent.token);
    // Answered together, so their records share the trail's batches.
    pair.downstream.delayMs = 200;
    const replies = await Promise.all(
      Array.from({ length: CALLS }, (_, i) =>
        mcpRaw(
          pair.url,
          { jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'get_item', arguments: { id: i } } },
          { token: agent.token, sessionId, headers: { 'X-Request-Id': `line-${i}` } },
        ),
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
    const lines = await eventually(
      async () => auditLines(),
      (found) => found.length >= CALLS,
    );
    expect(lines.map((line) => line.audit.requestId).sort()).toEqual(
      Array.from({ length: CALLS }, (_, i) => `line-${i}`).sort(),
    );
    const wrong = lines
      .filter((line) => line.requestId !== line.audit.requestId)
      .map((line) => `${line.requestId} on ${line.audit.requestId}`);
    expect(wrong).toEqual([]);
  });
});

/**
 * Issue 25, finding 16: a tools/call refused because the gateway is not
 * ready (here: its one downstream never answered, so no tool ever loaded)
 * is on the record of the agent whose token checks out, so the agent's own
 * audit view shows it.
 */
describe('a tools/call refused as not ready (dist/main.js, a downstream that never answers)', () => {
  let pair: Pair<{ url: string }>;

  beforeAll(async () => {
    pair = await startPair({ downstream: { url: `http://127.0.0.1:${await freePort()}` }, ready: false });
  });
  afterAll(() => pair?.stop());

  it("shows in the agent's audit view, with the agent", async () => {
    const admin = await pair.adminToken();
    const agent = await createAgentWithToken(pair.api, admin, { label: 'not-ready', dailyTokenBudget: 1_000 });
    const refused = await mcpRaw(
      pair.url,
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'get_item', arguments: { id: 1 } } },
      { token: agent.token, sessionId: 'A'.repeat(32), headers: { 'X-Request-Id': 'not-ready-1' } },
    );
    expect(refused.status).toBe(503);
    const records = await eventually(
      () => agentAudit(pair.api, admin, agent.agentId),
      (found) => found.some((record) => record.kind === 'tool-call'),
    );
    expect(records.find((record) => record.kind === 'tool-call')).toMatchObject({
      outcome: 'unavailable',
      agentId: agent.agentId,
      httpStatus: 503,
      jsonRpcCode: -32003,
    });
  });
});
