import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAgentWithToken,
  initializeRequest,
  mcpRaw,
  openRawSession,
  type McpExchange,
  type RawRequestOptions,
  type TestAgent,
} from './support/mcp.js';
import { startPair, type Pair } from './support/pair.js';

/**
 * POST /mcp is served by a Node handler in front of the app (mcp-transport/mcp-fast-path.ts)
 * unless the request comes from a browser page (`Origin`), which the app's CORS
 * middleware must see. The same gateway therefore answers the same request both
 * ways: with an allowed loopback Origin through the app, without one through the
 * fast path. Each pair of answers must agree in status, body and headers (CORS
 * headers and per-request values aside).
 */
describe('POST /mcp: the fast path answers as the app does (dist/main.js + sample downstream)', () => {
  let pair: Pair;
  let url: string;
  let agent: TestAgent;
  let sessionId: string;

  beforeAll(async () => {
    pair = await startPair();
    ({ url } = pair);
    const admin = await pair.adminToken();
    agent = await createAgentWithToken(pair.api, admin, { label: 'fast-path', dailyTokenBudget: 1_000_000 });
    ({ sessionId } = await openRawSession(url, agent.token, '2025-06-18'));
  });
  afterAll(() => pair?.stop());

  /** Headers that differ per request or belong to CORS, left out of the comparison (their presence still counts). */
  const VARYING = new Set([
    'date',
    'x-request-id',
    'server-timing',
    'mcp-session-id',
    'access-control-allow-origin',
    'access-control-expose-headers',
    'vary',
  ]);
  const comparable = (reply: McpExchange) => {
    const headers: Record<string, string> = {};
    const present: string[] = [];
    reply.headers.forEach((value, name) => {
      if (!VARYING.has(name) && name !== 'keep-alive') headers[name] = value;
      else if (VARYING.has(name) && !name.startsWith('access-control') && name !== 'vary') present.push(name);
    });
    // Resumable streams carry a random stream id in their event ids.
    return {
      status: reply.status,
      body: reply.text.replace(/^id: [A-Za-z0-9_.-]+:/gm, 'id: <stream>:'),
      headers,
      present: present.sort(),
    };
  };

  async function bothWays(body: unknown, options: RawRequestOptions = {}) {
    const viaFastPath = await mcpRaw(url, body, options);
    const viaApp = await mcpRaw(url, body, { ...options, headers: { ...options.headers, Origin: 'http://127.0.0.1' } });
    expect(viaApp.headers.get('access-control-allow-origin')).toBe('http://127.0.0.1');
    expect(viaFastPath.headers.get('access-control-allow-origin')).toBeNull();
    return { viaFastPath, viaApp };
  }

  const call = (id: number, name = 'get_order', args: unknown = { id: 1001 }): object => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: args },
  });

  it.each<[string, () => unknown, () => RawRequestOptions]>([
    ['a tools/call answered', () => call(1), () => ({ token: agent.token, sessionId })],
    ['a tool it does not know', () => call(2, 'no_such_tool'), () => ({ token: agent.token, sessionId })],
    ['invalid arguments', () => call(3, 'get_order', { id: 'x' }), () => ({ token: agent.token, sessionId })],
    ['ping', () => ({ jsonrpc: '2.0', id: 4, method: 'ping' }), () => ({ token: agent.token, sessionId })],
    [
      'a notification',
      () => ({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      () => ({ token: agent.token, sessionId }),
    ],
    ['no session id', () => call(5), () => ({ token: agent.token })],
    ['an unknown session', () => call(6), () => ({ token: agent.token, sessionId: 'A'.repeat(32) })],
    ['no token', () => call(7), () => ({ sessionId })],
    ['a forged token', () => call(8), () => ({ token: `${agent.token.slice(0, -4)}AAAA`, sessionId })],
    ['a body that is not JSON', () => '{"jsonrpc":', () => ({ token: agent.token, sessionId })],
    ['a batch', () => [call(9)], () => ({ token: agent.token, sessionId })],
    [
      'the wrong media type',
      () => call(10),
      () => ({ token: agent.token, sessionId, headers: { 'Content-Type': 'text/plain' } }),
    ],
    [
      'an Accept without event streams',
      () => call(11),
      () => ({ token: agent.token, sessionId, headers: { Accept: 'text/html' } }),
    ],
    [
      'two Authorization headers',
      () => call(12),
      () => ({ sessionId, headers: { Authorization: `Bearer ${agent.token}, Bearer ${agent.token}` } }),
    ],
    [
      'a Host the gateway does not answer',
      () => call(13),
      () => ({ token: agent.token, sessionId, headers: { Host: 'attacker.example' } }),
    ],
  ])('%s', async (what, body, options) => {
    const { viaFastPath, viaApp } = await bothWays(body(), options());
    expect(comparable(viaFastPath)).toEqual(comparable(viaApp));
    if (what === 'a tools/call answered')
      expect(viaFastPath.message.result.structuredContent).toMatchObject({ id: 1001 });
  });

  it('initialize: a session each way, the same answer otherwise', async () => {
    const { viaFastPath, viaApp } = await bothWays(initializeRequest('2025-06-18', 20), { token: agent.token });
    expect(viaFastPath.headers.get('mcp-session-id')).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(comparable(viaFastPath)).toEqual(comparable(viaApp));
  });

  it('a declared body over the limit is refused unread, and the connection closes, either way', async () => {
    const oversized = { token: agent.token, sessionId, headers: { 'Content-Length': String(10 * 1024 * 1024) } };
    const viaFastPath = await rawStatusLine(url, oversized.headers['Content-Length'], {});
    const viaApp = await rawStatusLine(url, oversized.headers['Content-Length'], { Origin: 'http://127.0.0.1' });
    expect(viaFastPath).toEqual(viaApp);
    expect(viaFastPath.status).toBe(413);
    expect(viaFastPath.connection).toBe('close');
  });

  it('echoes a sane X-Request-Id either way, and makes one up for an insane one', async () => {
    const sane = await bothWays(call(30), { token: agent.token, sessionId, headers: { 'X-Request-Id': 'req-123' } });
    expect(sane.viaFastPath.headers.get('x-request-id')).toBe('req-123');
    expect(sane.viaApp.headers.get('x-request-id')).toBe('req-123');
    const insane = await mcpRaw(url, call(31), { token: agent.token, sessionId, headers: { 'X-Request-Id': 'a b' } });
    expect(insane.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

/**
 * A request whose Content-Length announces more than the limit, with no body
 * sent: fetch cannot send a false length, so a raw socket does.
 */
async function rawStatusLine(
  url: string,
  length: string,
  extra: Record<string, string>,
): Promise<{ status: number; connection: string | null; body: string }> {
  const { connect } = await import('node:net');
  const { host, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), host.split(':')[0]!);
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = text.split('\r\n\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
      const connection = /^connection: (.*)$/im.exec(head)?.[1]?.trim() ?? null;
      resolve({ status, connection, body: body.replace(/"requestId":"[^"]*"/, '') });
    });
    const headers = {
      Host: host,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'Content-Length': length,
      ...extra,
    };
    socket.write(
      `POST /mcp HTTP/1.1\r\n${Object.entries(headers)
        .map(([name, value]) => `${name}: ${value}`)
        .join('\r\n')}\r\n\r\n`,
    );
    // The gateway answers without waiting for the body and closes; give up after a while regardless.
    setTimeout(() => socket.destroy(), 5_000).unref();
  });
}
