import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControlledDownstream } from './support/controlled-downstream.js';
import { GatewayClient } from './support/gateway-client.js';
import {
  connectSdkClient,
  createAgentWithToken,
  openRawSession,
  resultJson,
  SSE_MESSAGE,
  type TestAgent,
} from './support/mcp.js';
import { startPair, type Pair } from './support/pair.js';
import type { RunningProcess } from './support/processes.js';
import { HTTP_STATUS_DELIVERY } from './support/delivery.js';

const KEEP_ALIVE_MS = 300;
const TIMEOUT_MS = 2000;
const KEEP_ALIVE = ': keep-alive\n\n';

interface Chunk {
  at: number;
  text: string;
}

/** A tools/call read as it arrives: each chunk with the time it came, relative to the request. */
async function streamedCall(gatewayUrl: string, agent: TestAgent, sessionId: string, args: object) {
  const started = performance.now();
  const response = await fetch(`${gatewayUrl}/mcp`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      Authorization: `Bearer ${agent.token}`,
      'Mcp-Session-Id': sessionId,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'get_item', arguments: args },
    }),
  });
  const chunks: Chunk[] = [];
  const decoder = new TextDecoder();
  for await (const bytes of response.body as unknown as AsyncIterable<Uint8Array>) {
    chunks.push({ at: performance.now() - started, text: decoder.decode(bytes, { stream: true }) });
  }
  const text = chunks.map((chunk) => chunk.text).join('');
  const event = /event: message\ndata: (.*)\n\n$/s.exec(text);
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    chunks,
    text,
    message: event ? JSON.parse(event[1]!) : null,
  };
}

/**
 * A slow downstream (contract 4.3 and issue 6): the client's SSE stream carries
 * keep-alive comments while the call runs, so proxies keep it open, and ends
 * with the message event — the result, or the timeout as a JSON-RPC error.
 */
describe('slow downstream: SSE keep-alive and the downstream timeout (dist/main.js)', () => {
  let pair: Pair<ControlledDownstream>;
  let downstream: ControlledDownstream;
  let gateway: RunningProcess;
  let api: GatewayClient;
  let admin: string;
  let agent: TestAgent;
  let sessionId: string;

  beforeAll(async () => {
    pair = await startPair({
      downstream: 'controlled',
      gateway: {
        env: {
          ...HTTP_STATUS_DELIVERY,
          Gw__Mcp__KeepAliveSeconds: String(KEEP_ALIVE_MS / 1000),
          Gw__Downstream__TimeoutMs: String(TIMEOUT_MS),
          Gw__Cache__Enabled: 'false',
        },
      },
    });
    ({ downstream, gateway, api } = pair);
    admin = await pair.adminToken();
    agent = await createAgentWithToken(api, admin, { label: 'patient', dailyTokenBudget: 100_000 });
    ({ sessionId } = await openRawSession(gateway.url, agent.token));
  });
  afterAll(() => pair?.stop());

  const used = async () => (await api.request('GET', `/management/agents/${agent.agentId}/budget`, admin)).body.used;

  it('answers a quick call with one plain SSE message event', async () => {
    downstream.delayMs = 0;
    const reply = await streamedCall(gateway.url, agent, sessionId, { id: 1 });
    expect(reply.status).toBe(200);
    expect(reply.text).toMatch(SSE_MESSAGE);
    expect(reply.text).not.toContain(KEEP_ALIVE);
    expect(resultJson(reply.message.result)).toMatchObject({ id: 1 });
  });

  it('sends keep-alive comments while a slow call runs, then the result', async () => {
    downstream.delayMs = 1500;
    try {
      const before = await used();
      const reply = await streamedCall(gateway.url, agent, sessionId, { id: 2 });
      expect(reply.status).toBe(200);
      expect(reply.contentType).toMatch(/^text\/event-stream/);

      // Comments arrive during the call, one per interval, before the message event.
      const comments = reply.chunks.filter((chunk) => chunk.text.includes(KEEP_ALIVE));
      expect(comments.length).toBeGreaterThanOrEqual(3);
      expect(comments[0]!.at).toBeLessThan(1000);
      const messageChunk = reply.chunks.find((chunk) => chunk.text.includes('event: message'))!;
      expect(messageChunk.at).toBeGreaterThan(1400);
      expect(comments.every((chunk) => chunk.at < messageChunk.at)).toBe(true);
      expect(reply.text).toMatch(/^(: keep-alive\n\n)+event: message\ndata: .*\n\n$/s);

      expect(reply.message).toMatchObject({ jsonrpc: '2.0', id: 7 });
      expect(resultJson(reply.message.result)).toMatchObject({ id: 2 });
      expect(await used()).toBeGreaterThan(before);
    } finally {
      downstream.delayMs = 0;
    }
  });

  it('ends a call that outlasts Gw:Downstream:TimeoutMs with -32002 inside the stream (data.httpStatus 502), nothing charged', async () => {
    downstream.delayMs = TIMEOUT_MS + 2000;
    try {
      const before = await used();
      const reply = await streamedCall(gateway.url, agent, sessionId, { id: 3 });
      expect(reply.status).toBe(200); // the status line left before the timeout
      expect(reply.text).toContain(KEEP_ALIVE);
      expect(reply.message).toMatchObject({
        jsonrpc: '2.0',
        id: 7,
        error: { code: -32002, data: { httpStatus: 502, reason: 'timeout' } },
      });
      const ended = reply.chunks.at(-1)!.at;
      expect(ended).toBeGreaterThan(TIMEOUT_MS - 100);
      expect(ended).toBeLessThan(TIMEOUT_MS + 1500);
      expect(await used()).toBe(before);
    } finally {
      downstream.delayMs = 0;
    }
  });

  it('the official SDK client reads a streamed result through the keep-alive comments', async () => {
    downstream.delayMs = 1000;
    const client = await connectSdkClient(gateway.url, agent.token);
    try {
      const result = await client.callTool({ name: 'get_item', arguments: { id: 4 } });
      expect(resultJson(result)).toMatchObject({ id: 4 });
    } finally {
      downstream.delayMs = 0;
      await client.close();
    }
  });
});
