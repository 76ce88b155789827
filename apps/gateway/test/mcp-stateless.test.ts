import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentAudit, type AuditRecordJson } from './support/audit.js';
import type { ControlledDownstream } from './support/controlled-downstream.js';
import { GatewayClient } from './support/gateway-client.js';
import { createAgentWithToken, mcpRaw, openRawSession, type McpExchange, type TestAgent } from './support/mcp.js';
import { startPair, type Pair } from './support/pair.js';
import { monitorRedis, type RedisMonitor } from './support/redis-monitor.js';
import { redisServerAvailable } from './support/redis-guard.js';

const available = redisServerAvailable('the MCP 2026-07-28 instance tests');
const MODERN = '2026-07-28';
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
/** How long the downstream takes when a test makes it slow: the client leaves well before. */
const SLOW_MS = 1_500;

/** A 2026-07-28 request: the envelope in the body, its mirror in the headers (a header of undefined is left out). */
function modern(
  url: string,
  agent: TestAgent,
  method: string,
  params: Record<string, unknown> = {},
  headers: Record<string, string | undefined> = {},
  withEnvelope = true,
): Promise<McpExchange> {
  const body = { jsonrpc: '2.0', id: 3, method, params: withEnvelope ? { ...params, _meta: ENVELOPE } : params };
  const mirrored = {
    'MCP-Protocol-Version': MODERN,
    'Mcp-Method': method,
    'Mcp-Name': typeof params.name === 'string' ? params.name : undefined,
  };
  return mcpRaw(url, body, { token: agent.token, headers: { ...mirrored, ...headers } });
}

const CALL = { name: 'get_item', arguments: { id: 5 } };

/**
 * MCP 2026-07-28 over HTTP, on two gateway processes sharing one Redis: no
 * session anywhere (any instance answers any request, and the store never
 * holds a session key), the revision's errors for bad input with nothing
 * charged, and a client closing its stream cancelling the call.
 */
describe.runIf(available)(
  'MCP 2026-07-28: sessionless requests on two instances (dist/main.js, Redis)',
  { timeout: 30_000 },
  () => {
    let pair: Pair<ControlledDownstream, true>;
    let admin: string;
    let monitor: RedisMonitor;

    beforeAll(async () => {
      pair = await startPair({
        downstream: 'controlled',
        redis: true,
        instances: 2,
        gateway: { env: { Gw__Cache__Enabled: 'false' } },
      });
      admin = await pair.adminToken();
      monitor = await monitorRedis(pair.redis.url);
    });
    afterAll(async () => {
      monitor?.stop();
      await pair?.stop();
    });

    const agent = (label: string) => createAgentWithToken(pair.api, admin, { label, dailyTokenBudget: 10_000 });
    const used = async (who: TestAgent) =>
      (await pair.api.request('GET', `/management/agents/${who.agentId}/budget`, admin)).body.used;

    it('a call served by instance B after the previous went to A; no session id out, no session key written to Redis', async () => {
      const alice = await agent('alice');
      const [a, b] = [pair.gateways[0]!, pair.gateways[1]!];
      const first = await modern(a.url, alice, 'tools/call', CALL);
      const second = await modern(b.url, alice, 'tools/call', CALL);
      const listed = await modern(b.url, alice, 'tools/list');
      for (const reply of [first, second, listed]) {
        expect(reply.status).toBe(200);
        expect(reply.headers.get('mcp-session-id')).toBeNull();
        expect(reply.message.result).toMatchObject({
          resultType: 'complete',
          _meta: { 'io.modelcontextprotocol/serverInfo': { name: expect.any(String) } },
        });
      }
      expect(first.message.result.structuredContent).toEqual(second.message.result.structuredContent);
      expect(listed.message.result).toMatchObject({ ttlMs: 60_000, cacheScope: 'private' });
      const SESSION_KEYS = /tollgate:sessions?:/;
      expect(monitor.commands()).toMatch(/tollgate:budget:/);
      expect(monitor.commands()).not.toMatch(SESSION_KEYS);
      // The control: a 2025 session on the same store does write one.
      await openRawSession(a.url, alice.token, '2025-11-25');
      expect(monitor.commands()).toMatch(SESSION_KEYS);
    });

    it.each([
      [
        'the envelope without the headers',
        'tools/call',
        { 'MCP-Protocol-Version': undefined, 'Mcp-Method': undefined, 'Mcp-Name': undefined },
        true,
        400,
        -32020,
      ],
      ['the headers without the envelope', 'tools/call', {}, false, 400, -32602],
      ['two versions that disagree', 'tools/call', { 'MCP-Protocol-Version': '2025-11-25' }, true, 400, -32020],
      ['an unsupported version in both', 'tools/call', { 'MCP-Protocol-Version': '2030-01-01' }, 'future', 400, -32022],
      ['the envelope on initialize', 'initialize', {}, true, 404, -32601],
      ['a session id on a 2026-07-28 request', 'tools/call', { 'Mcp-Session-Id': 'A'.repeat(32) }, true, 400, -32600],
    ] as const)(
      "%s: a 4xx with the revision's error, nothing charged or forwarded",
      async (_label, method, headers, envelope, status, code) => {
        const who = await agent(`bad-${method}-${status}-${code}`);
        const requestsBefore = pair.downstream.hits.length;
        const params =
          method === 'initialize'
            ? { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } }
            : CALL;
        const reply =
          envelope === 'future'
            ? await mcpRaw(
                pair.url,
                {
                  jsonrpc: '2.0',
                  id: 3,
                  method,
                  params: {
                    ...params,
                    _meta: { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': '2030-01-01' },
                  },
                },
                {
                  token: who.token,
                  headers: { 'MCP-Protocol-Version': '2030-01-01', 'Mcp-Method': method, 'Mcp-Name': 'get_item' },
                },
              )
            : await modern(pair.url, who, method, params, headers, envelope);
        expect(reply.status).toBe(status);
        expect(reply.headers.get('content-type')).toMatch(/application\/json/);
        expect(reply.message).toMatchObject({ jsonrpc: '2.0', id: 3, error: { code, message: expect.any(String) } });
        expect(reply.headers.get('mcp-session-id')).toBeNull();
        expect(pair.downstream.hits.length).toBe(requestsBefore);
        expect(await used(who)).toBe(0);
      },
    );

    it('a client that closes its stream cancels the call: the downstream request aborted, nothing charged, audited client-gone', async () => {
      const who = await agent('leaves');
      pair.downstream.delayMs = SLOW_MS;
      try {
        const cancelledBefore = pair.downstream.cancelled.length;
        const received = await modernCallThenLeave(pair.url, who, 200);
        const [record] = await toolCalls(who, 1);
        expect(received).toBe('');
        expect(record).toMatchObject({ outcome: 'client-gone', tool: 'get_item', sessionId: null, tokensCharged: 0 });
        expect(pair.downstream.cancelled.length).toBe(cancelledBefore + 1);
        expect(await used(who)).toBe(0);
        expect((await pair.api.request('GET', `/management/agents/${who.agentId}/budget`, admin)).body).toMatchObject({
          remaining: 10_000,
        });
      } finally {
        pair.downstream.delayMs = 0;
      }
    });

    it('a listen stream opened on instance B hears of an allowlist change made through instance A (Redis pub/sub), after its acknowledgement', async () => {
      const who = await agent('listener');
      const [a, b] = [pair.gateways[0]!, pair.gateways[1]!];
      const listen = await openListen(b.url, who);
      try {
        expect(listen.status).toBe(200);
        expect(listen.headers.get('content-type')).toMatch(/text\/event-stream/);
        const ack = await listen.next();
        expect(ack).toMatchObject({
          method: 'notifications/subscriptions/acknowledged',
          params: {
            notifications: { toolsListChanged: true },
            _meta: { 'io.modelcontextprotocol/subscriptionId': 'listen-1' },
          },
        });
        const changed = await new GatewayClient(a.url).request('PUT', `/management/agents/${who.agentId}`, admin, {
          allowedTools: ['get_item'],
        });
        expect(changed.status).toBe(200);
        expect(await listen.next()).toEqual({
          jsonrpc: '2.0',
          method: 'notifications/tools/list_changed',
          params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'listen-1' } },
        });
        // A listen stream holds no call slot and is never charged.
        expect((await modern(b.url, who, 'tools/call', CALL)).status).toBe(200);
      } finally {
        listen.close();
      }
    });

    it("past its bound of listen streams an agent is refused with 429, and the other agents' streams are not touched", async () => {
      const who = await agent('greedy');
      const opened: Listen[] = [];
      try {
        for (let i = 0; i < 10; i += 1) opened.push(await openListen(pair.url, who));
        const refused = await modern(pair.url, who, 'subscriptions/listen', {
          notifications: { toolsListChanged: true },
        });
        expect(refused.status).toBe(429);
        expect(refused.message.error).toMatchObject({ code: -32003, message: expect.stringMatching(/listen streams/) });
        const other = await openListen(pair.url, await agent('modest'));
        expect(other.status).toBe(200);
        other.close();
      } finally {
        for (const listen of opened) listen.close();
      }
    });

    interface Listen {
      status: number;
      headers: Headers;
      /** The next SSE message event's JSON (keep-alive comments skipped); fails the test after 10 s. */
      next(): Promise<unknown>;
      close(): void;
    }

    /** Opens a subscriptions/listen stream (id "listen-1") and reads its events as they come. */
    async function openListen(url: string, who: TestAgent): Promise<Listen> {
      const abort = new AbortController();
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: 'listen-1',
        method: 'subscriptions/listen',
        params: { notifications: { toolsListChanged: true }, _meta: ENVELOPE },
      });
      const response = await fetch(`${url}/mcp`, {
        method: 'POST',
        signal: abort.signal,
        headers: {
          Authorization: `Bearer ${who.token}`,
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          'MCP-Protocol-Version': MODERN,
          'Mcp-Method': 'subscriptions/listen',
        },
        body,
      });
      const reader = response.body!.getReader();
      const decoder = new TextDecoder();
      let buffered = '';
      return {
        status: response.status,
        headers: response.headers,
        async next() {
          const deadline = setTimeout(() => abort.abort(), 10_000);
          try {
            for (;;) {
              const match = /event: message\ndata: (.*)\n\n/.exec(buffered);
              if (match) {
                buffered = buffered.slice(match.index + match[0].length);
                return JSON.parse(match[1]!);
              }
              const { value, done } = await reader.read();
              if (done) throw new Error(`the listen stream ended; it had sent: ${JSON.stringify(buffered)}`);
              buffered += decoder.decode(value, { stream: true });
            }
          } finally {
            clearTimeout(deadline);
          }
        },
        close: () => abort.abort(),
      };
    }

    /** Posts one 2026-07-28 tools/call on its own connection and drops it after `leaveAfterMs`; what arrived before. */
    function modernCallThenLeave(url: string, who: TestAgent, leaveAfterMs: number): Promise<string> {
      const { hostname, port } = new URL(url);
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { ...CALL, _meta: ENVELOPE },
      });
      const head = [
        'POST /mcp HTTP/1.1',
        `Host: ${hostname}:${port}`,
        `Authorization: Bearer ${who.token}`,
        `MCP-Protocol-Version: ${MODERN}`,
        'Mcp-Method: tools/call',
        'Mcp-Name: get_item',
        'Content-Type: application/json',
        'Accept: application/json, text/event-stream',
        `Content-Length: ${Buffer.byteLength(body)}`,
      ];
      return new Promise((resolve) => {
        const socket = connect({ port: Number(port), host: hostname });
        let received = '';
        socket.setEncoding('latin1');
        socket.on('data', (chunk: string) => (received += chunk));
        socket.on('error', () => undefined);
        socket.on('close', () => resolve(received));
        socket.write(`${head.join('\r\n')}\r\n\r\n${body}`);
        setTimeout(() => socket.destroy(), leaveAfterMs);
      });
    }

    /** The agent's tool-call records once `count` are written (the audit write is asynchronous). */
    async function toolCalls(who: TestAgent, count: number): Promise<AuditRecordJson[]> {
      for (let attempt = 0; attempt < 50; attempt += 1) {
        const records = (await agentAudit(pair.api, admin, who.agentId)).filter(
          (record) => record.kind === 'tool-call',
        );
        if (records.length >= count) return records;
        await sleep(100);
      }
      throw new Error(`fewer than ${count} tool-call records for ${who.agentId}`);
    }
  },
);
