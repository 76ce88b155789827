import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControlledDownstream } from './support/controlled-downstream.js';
import { createAgentWithToken, mcpRaw, openRawSession, type TestAgent } from './support/mcp.js';
import { startPair, type Pair } from './support/pair.js';

const PRIMING = /^id: (\S+:0)\nretry: \d+\ndata: \n\n/;

/** Posts a tools/call and reads its stream only up to the priming event, then hangs up: a client that lost its connection. */
async function callAndHangUp(url: string, agent: TestAgent, sessionId: string): Promise<string> {
  const abort = new AbortController();
  const response = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      Authorization: `Bearer ${agent.token}`,
      'Mcp-Session-Id': sessionId,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 31,
      method: 'tools/call',
      params: { name: 'get_item', arguments: { id: 5 } },
    }),
    signal: abort.signal,
  });
  const reader = response.body!.getReader();
  let text = '';
  while (!PRIMING.test(text)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`stream ended before its priming event: ${JSON.stringify(text)}`);
    text += new TextDecoder().decode(value);
  }
  abort.abort();
  return PRIMING.exec(text)![1]!;
}

/**
 * Resumable streams (MCP Streamable HTTP): a client that loses the stream of
 * a long tools/call resumes it with GET /mcp and Last-Event-ID, on any
 * instance, within the window; the call is not cancelled by the lost stream.
 */
describe('resumable tools/call streams (dist/main.js × 2 on one Redis + controlled downstream)', () => {
  let pair: Pair<ControlledDownstream, true>;
  let agent: TestAgent;

  beforeAll(async () => {
    pair = await startPair({
      downstream: 'controlled',
      redis: true,
      instances: 2,
      gateway: {
        env: { Gw__Mcp__KeepAliveSeconds: '0.2', Gw__Mcp__ResumeWindowSeconds: '3', Gw__Cache__Enabled: 'false' },
      },
    });
    agent = await createAgentWithToken(pair.api, await pair.adminToken(), {
      label: 'roaming',
      dailyTokenBudget: 100_000,
    });
  });
  afterAll(() => pair?.stop());

  it('answers a lost stream on the other instance, with the answer as event 1, and charges and audits the call once', async () => {
    const [first, second] = pair.gateways;
    const { sessionId } = await openRawSession(first!.url, agent.token, '2025-11-25');
    pair.downstream.delayMs = 1_000;
    const lastEventId = await callAndHangUp(first!.url, agent, sessionId);
    const hits = pair.downstream.hits.length;

    const resumed = await mcpRaw(second!.url, undefined, {
      method: 'GET',
      token: agent.token,
      sessionId,
      headers: { 'Last-Event-ID': lastEventId, 'Content-Type': undefined },
    });
    expect(resumed.status).toBe(200);
    expect(resumed.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const event = /id: (\S+)\nevent: message\ndata: (.*)\n\n$/s.exec(resumed.text);
    expect(event?.[1]).toBe(lastEventId.replace(/:0$/, ':1'));
    expect(JSON.parse(event![2]!)).toMatchObject({ id: 31, result: { content: [{ type: 'text' }] } });
    // The downstream was asked once: the lost stream did not cancel the call, the resume did not repeat it.
    expect(pair.downstream.hits.length).toBe(hits);

    const audit = await pair.api.request(
      'GET',
      `/management/agents/${agent.agentId}/audit?tool=get_item`,
      await pair.adminToken(),
    );
    expect(audit.body.records.filter((record: { outcome: string }) => record.outcome === 'ok')).toHaveLength(1);
  });

  it('answers stream-gone (for the resumed request) when nothing is kept within the window', async () => {
    const [first] = pair.gateways;
    const { sessionId } = await openRawSession(first!.url, agent.token, '2025-11-25');
    pair.downstream.delayMs = 0;
    // A stream whose client stayed: its answer was delivered and never kept.
    const delivered = await mcpRaw(
      first!.url,
      { jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'get_item', arguments: { id: 1 } } },
      { token: agent.token, sessionId },
    );
    const streamEvent = /^id: (\S+):0\n/.exec(delivered.text)![1]!;
    const resumed = await mcpRaw(first!.url, undefined, {
      method: 'GET',
      token: agent.token,
      sessionId,
      headers: { 'Last-Event-ID': `${streamEvent}:0`, 'Content-Type': undefined },
    });
    expect(resumed.status).toBe(200);
    expect(resumed.text).toMatch(/event: message\ndata: .*"id":8.*"code":-32600.*"httpStatus":410/s);
  });

  it('refuses a Last-Event-ID it did not hand out with 400, and still answers a plain GET with 405', async () => {
    const [first] = pair.gateways;
    const { sessionId } = await openRawSession(first!.url, agent.token, '2025-11-25');
    const forged = await mcpRaw(first!.url, undefined, {
      method: 'GET',
      token: agent.token,
      sessionId,
      headers: { 'Last-Event-ID': 'forged:0', 'Content-Type': undefined },
    });
    expect(forged.status).toBe(400);
    expect(forged.message).toMatchObject({ error: { code: -32600 } });
    const plain = await mcpRaw(first!.url, undefined, {
      method: 'GET',
      token: agent.token,
      sessionId,
      headers: { 'Content-Type': undefined },
    });
    expect(plain.status).toBe(405);
  });
});
