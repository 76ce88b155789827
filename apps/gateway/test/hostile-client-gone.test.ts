import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentAudit, type AuditRecordJson } from './support/audit.js';
import type { ControlledDownstream } from './support/controlled-downstream.js';
import { connectSdkClient, createAgentWithToken, openRawSession, type TestAgent } from './support/mcp.js';
import { startPair, type Pair } from './support/pair.js';

/** How long the downstream takes to answer: the clients below leave well before. */
const DOWNSTREAM_DELAY_MS = 1_500;

interface Left {
  /** Everything the gateway sent before the connection ended. */
  received: string;
}

/**
 * Posts one tools/call on its own connection, then leaves after `leaveAfterMs`:
 * `'half-close'` ends only its sending side (FIN) right after the request,
 * `'close'` drops the whole connection.
 */
function callThenLeave(
  url: string,
  agent: TestAgent,
  sessionId: string,
  how: 'half-close' | 'close',
  leaveAfterMs = 0,
): Promise<Left> {
  const { hostname, port } = new URL(url);
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 7,
    method: 'tools/call',
    params: { name: 'get_item', arguments: { id: 5 } },
  });
  const head = [
    'POST /mcp HTTP/1.1',
    `Host: ${hostname}:${port}`,
    `Authorization: Bearer ${agent.token}`,
    `Mcp-Session-Id: ${sessionId}`,
    'MCP-Protocol-Version: 2024-11-05',
    'Content-Type: application/json',
    'Accept: application/json, text/event-stream',
    `Content-Length: ${Buffer.byteLength(body)}`,
  ];
  return new Promise((resolve) => {
    const socket = connect({ port: Number(port), host: hostname, allowHalfOpen: true });
    let received = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve({ received }));
    socket.write(`${head.join('\r\n')}\r\n\r\n${body}`);
    setTimeout(() => (how === 'half-close' ? socket.end() : socket.destroy()), leaveAfterMs);
  });
}

/** The agent's tool-call records once `count` are written (the audit write is asynchronous). */
async function toolCalls(
  pair: Pair<ControlledDownstream>,
  admin: string,
  agent: TestAgent,
  count: number,
): Promise<AuditRecordJson[]> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const records = (await agentAudit(pair.api, admin, agent.agentId)).filter((record) => record.kind === 'tool-call');
    if (records.length >= count) return records;
    await sleep(100);
  }
  throw new Error(`fewer than ${count} tool-call records for ${agent.agentId}`);
}

/**
 * Issue 15, "a client that half-closes after sending gets 0 bytes yet its
 * call is forwarded, charged and audited as ok". On a revision without
 * resumable streams (2024-11-05), a client that goes away before its answer
 * cancels the downstream call, is charged nothing, and is audited as
 * `client-gone`. (From 2025-03-26 the answer is kept for a resume instead:
 * see mcp-resumable-streams.test.ts.)
 */
describe('a client that goes away before its answer (dist/main.js, controlled downstream)', () => {
  let pair: Pair<ControlledDownstream>;
  let admin: string;

  beforeAll(async () => {
    pair = await startPair({ downstream: 'controlled', gateway: { env: { Gw__Cache__Enabled: 'false' } } });
    pair.downstream.delayMs = DOWNSTREAM_DELAY_MS;
    admin = await pair.adminToken();
  });
  afterAll(() => pair?.stop());

  it.each([
    ['drops the connection 200 ms into the call', 'close', 200],
    ['half-closes right after sending the request', 'half-close', 0],
  ] as const)(
    '%s: the downstream call is cancelled, nothing is charged, the audit says client-gone',
    async (_, how, leaveAfterMs) => {
      const agent = await createAgentWithToken(pair.api, admin, { label: `gone-${how}`, dailyTokenBudget: 10_000 });
      const { sessionId } = await openRawSession(pair.url, agent.token);
      const cancelledBefore = pair.downstream.cancelled.length;

      const { received } = await callThenLeave(pair.url, agent, sessionId, how, leaveAfterMs);
      const [record] = await toolCalls(pair, admin, agent, 1);

      expect(received).toBe('');
      expect(record).toMatchObject({
        outcome: 'client-gone',
        tool: 'get_item',
        agentId: agent.agentId,
        tokensCharged: 0,
        httpStatus: 499,
      });
      expect(pair.downstream.cancelled.length).toBe(cancelledBefore + 1);
      const budget = await pair.api.request('GET', `/management/agents/${agent.agentId}/budget`, admin);
      expect(budget.body).toMatchObject({ used: 0, remaining: 10_000 });
    },
  );

  it('an SDK client (2025-11-25) that aborts its call sends notifications/cancelled: the downstream call stops, nothing is charged, the audit says client-gone', async () => {
    const agent = await createAgentWithToken(pair.api, admin, { label: 'sdk-abort', dailyTokenBudget: 10_000 });
    const client = await connectSdkClient(pair.url, agent.token);
    const cancelledBefore = pair.downstream.cancelled.length;
    const abort = new AbortController();
    const call = client.callTool({ name: 'get_item', arguments: { id: 5 } }, undefined, { signal: abort.signal });
    await sleep(300);
    abort.abort('the user pressed stop');
    await expect(call).rejects.toThrow();
    const [record] = await toolCalls(pair, admin, agent, 1);
    await client.close();

    expect(record).toMatchObject({ outcome: 'client-gone', tool: 'get_item', tokensCharged: 0 });
    expect(pair.downstream.cancelled.length).toBe(cancelledBefore + 1);
    const budget = await pair.api.request('GET', `/management/agents/${agent.agentId}/budget`, admin);
    expect(budget.body).toMatchObject({ used: 0, remaining: 10_000 });
  });
});
