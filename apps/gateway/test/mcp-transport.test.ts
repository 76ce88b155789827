import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayClient } from './support/gateway-client.js';
import {
  createAgentWithToken,
  initializeRequest,
  mcpRaw,
  openRawSession,
  rawCall,
  type TestAgent,
} from './support/mcp.js';
import { startPair, type Pair } from './support/pair.js';
import { HTTP_STATUS_DELIVERY } from './support/delivery.js';

/**
 * POST/GET/DELETE /mcp at the HTTP level (contract 3.2, 4.3, 7): exact statuses,
 * JSON-RPC codes and framing, which an SDK client would hide.
 */
describe('MCP transport (dist/main.js + sample downstream)', () => {
  let pair: Pair;
  let url: string;
  let alice: TestAgent;
  let bob: TestAgent;

  beforeAll(async () => {
    pair = await startPair({ gateway: { env: HTTP_STATUS_DELIVERY } });
    ({ url } = pair);
    const admin = await pair.adminToken();
    alice = await createAgentWithToken(pair.api, admin, { label: 'alice', dailyTokenBudget: 100_000 });
    bob = await createAgentWithToken(pair.api, admin, { label: 'bob', dailyTokenBudget: 100_000 });
  });
  afterAll(() => pair?.stop());

  describe('initialize and protocol versions', () => {
    it('answers initialize as one SSE message event and returns Mcp-Session-Id', async () => {
      const reply = await mcpRaw(url, initializeRequest('2024-11-05', 7), { token: alice.token });
      expect(reply.status).toBe(200);
      expect(reply.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(reply.text).toMatch(/^event: message\ndata: \{.*\}\n\n$/s);
      expect(reply.headers.get('mcp-session-id')).toMatch(/^[A-Za-z0-9_-]{32}$/);
      expect(reply.message).toMatchObject({
        jsonrpc: '2.0',
        id: 7,
        result: {
          protocolVersion: '2024-11-05',
          capabilities: { tools: {} },
          serverInfo: { name: expect.any(String), version: expect.any(String) },
        },
      });
    });

    it.each(['2025-03-26', '2025-06-18', '2025-11-25'])(
      'answers a client asking for %s in that version',
      async (version) => {
        const { initialized } = await openRawSession(url, alice.token, version);
        expect(initialized.message.result.protocolVersion).toBe(version);
      },
    );

    it('answers an unknown version with the newest it supports (2025-11-25)', async () => {
      const { initialized } = await openRawSession(url, alice.token, '2099-12-31');
      expect(initialized.message.result.protocolVersion).toBe('2025-11-25');
    });

    it('gives structuredContent and annotations to 2025-06-18 clients only', async () => {
      const call = { name: 'get_order', arguments: { id: 1001 } };
      const old = await openRawSession(url, alice.token, '2024-11-05');
      const oldResult = (await rawCall(url, alice.token, old.sessionId, 'tools/call', call)).message.result;
      expect(oldResult.structuredContent).toBeUndefined();
      const oldTools = (await rawCall(url, alice.token, old.sessionId, 'tools/list')).message.result.tools;
      expect(oldTools.every((tool: any) => tool.annotations === undefined)).toBe(true);

      const current = await openRawSession(url, alice.token, '2025-06-18');
      const currentResult = (await rawCall(url, alice.token, current.sessionId, 'tools/call', call)).message.result;
      expect(currentResult.structuredContent).toEqual(JSON.parse(currentResult.content[0].text));
      expect(currentResult.structuredContent).toMatchObject({ id: 1001 });
      const currentTools = (await rawCall(url, alice.token, current.sessionId, 'tools/list')).message.result.tools;
      expect(currentTools.find((tool: any) => tool.name === 'get_order').annotations).toMatchObject({
        readOnlyHint: true,
      });
    });

    it('accepts any supported MCP-Protocol-Version header in a session and refuses an unsupported or malformed one with 400', async () => {
      const { sessionId } = await openRawSession(url, alice.token, '2025-06-18');
      const ping = { jsonrpc: '2.0', id: 3, method: 'ping' };
      for (const version of ['2025-06-18', '2025-03-26', '2025-11-25']) {
        const accepted = await mcpRaw(url, ping, {
          token: alice.token,
          sessionId,
          headers: { 'MCP-Protocol-Version': version },
        });
        expect(accepted.status).toBe(200);
      }
      for (const version of ['2099-01-01', '1.0']) {
        const refused = await mcpRaw(url, ping, {
          token: alice.token,
          sessionId,
          headers: { 'MCP-Protocol-Version': version },
        });
        expect(refused.status).toBe(400);
        expect(refused.message).toMatchObject({ jsonrpc: '2.0', id: 3, error: { code: -32600 } });
      }
    });

    it('refuses initialize params without clientInfo with 400 / -32602', async () => {
      const reply = await mcpRaw(
        url,
        { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2024-11-05', capabilities: {} } },
        { token: alice.token },
      );
      expect(reply.status).toBe(400);
      expect(reply.message).toMatchObject({ id: 1, error: { code: -32602 } });
      expect(reply.headers.get('mcp-session-id')).toBeNull();
    });
  });

  describe('requests inside a session', () => {
    let sessionId: string;
    beforeAll(async () => {
      ({ sessionId } = await openRawSession(url, alice.token));
    });

    it('answers notifications with 202 and no body', async () => {
      const reply = await mcpRaw(
        url,
        { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 9 } },
        { token: alice.token, sessionId },
      );
      expect(reply.status).toBe(202);
      expect(reply.text).toBe('');
    });

    it('answers ping with an empty result', async () => {
      const reply = await rawCall(url, alice.token, sessionId, 'ping', {}, 'p-1' as unknown as number);
      expect(reply.status).toBe(200);
      expect(reply.message).toEqual({ jsonrpc: '2.0', id: 'p-1', result: {} });
    });

    it('answers an unknown method with -32601 inside the SSE stream', async () => {
      const reply = await rawCall(url, alice.token, sessionId, 'resources/list', {}, 11);
      expect(reply.status).toBe(200);
      expect(reply.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(reply.message).toMatchObject({
        jsonrpc: '2.0',
        id: 11,
        error: { code: -32601, message: expect.stringContaining('resources/list') },
      });
    });

    it('answers a body that is not JSON with 400 / -32700 and id null', async () => {
      const reply = await mcpRaw(url, '{"jsonrpc": "2.0", "id": 1, "method": ', { token: alice.token, sessionId });
      expect(reply.status).toBe(400);
      expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
      expect(reply.message).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    });

    it.each([
      ['a version other than 2.0', { jsonrpc: '1.0', id: 1, method: 'ping' }],
      ['a method that is not a string', { jsonrpc: '2.0', id: 1, method: 42 }],
      ['an object id', { jsonrpc: '2.0', id: { a: 1 }, method: 'ping' }],
      ['an empty batch', []],
      ['a batch (refused for every version)', [{ jsonrpc: '2.0', id: 1, method: 'ping' }]],
      ['a JSON string', '"ping"'],
    ])('answers %s with 400 / -32600', async (_, body) => {
      const reply = await mcpRaw(url, body, { token: alice.token, sessionId });
      expect(reply.status).toBe(400);
      expect(reply.message).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
    });

    it('echoes the id of a refused request when the id itself is valid', async () => {
      const reply = await mcpRaw(
        url,
        { jsonrpc: '2.0', id: 'r-9', method: 'tools/list', params: 'all' },
        { token: alice.token, sessionId },
      );
      expect(reply.status).toBe(400);
      expect(reply.message).toEqual({
        jsonrpc: '2.0',
        id: 'r-9',
        error: { code: -32600, message: expect.stringContaining('params must be an object') },
      });
    });

    it('refuses a body over the size limit with 413', async () => {
      const huge = { jsonrpc: '2.0', id: 1, method: 'ping', params: { padding: 'a'.repeat(2 * 1024 * 1024) } };
      const reply = await mcpRaw(url, huge, { token: alice.token, sessionId });
      expect(reply.status).toBe(413);
      expect(reply.message).toMatchObject({ error: { code: -32600 } });
    });

    it('opens a new session on initialize even when a session id is sent', async () => {
      const reply = await mcpRaw(url, initializeRequest(), { token: alice.token, sessionId: 'x' });
      // initialize never looks at the session header: it opens a new session.
      expect(reply.status).toBe(200);
      expect(reply.headers.get('mcp-session-id')).not.toBe(sessionId);
    });
  });

  describe('sessions', () => {
    it('refuses a request without Mcp-Session-Id with 400 and a JSON-RPC error', async () => {
      const reply = await mcpRaw(
        url,
        { jsonrpc: '2.0', id: 5, method: 'tools/list', params: {} },
        { token: alice.token },
      );
      expect(reply.status).toBe(400);
      expect(reply.message).toMatchObject({
        jsonrpc: '2.0',
        id: 5,
        error: { code: -32600, message: expect.stringMatching(/Mcp-Session-Id/) },
      });
    });

    it("answers another agent's session id with 404, like an unknown one", async () => {
      const { sessionId } = await openRawSession(url, alice.token);
      const stolen = await rawCall(url, bob.token, sessionId, 'tools/list', {}, 6);
      const unknown = await rawCall(url, bob.token, 'A'.repeat(32), 'tools/list', {}, 6);
      expect(stolen.status).toBe(404);
      expect(stolen.message).toMatchObject({ id: 6, error: { code: -32600 } });
      expect(stolen.message).toEqual(unknown.message);
      // The owner still has it.
      expect((await rawCall(url, alice.token, sessionId, 'ping')).status).toBe(200);
    });

    it('ends a session with DELETE /mcp; the id is then 404', async () => {
      const { sessionId } = await openRawSession(url, alice.token);
      const notOwner = await mcpRaw(url, undefined, { method: 'DELETE', token: bob.token, sessionId });
      expect(notOwner.status).toBe(404);
      const ended = await mcpRaw(url, undefined, { method: 'DELETE', token: alice.token, sessionId });
      expect(ended.status).toBe(204);
      expect((await rawCall(url, alice.token, sessionId, 'ping')).status).toBe(404);
      expect((await mcpRaw(url, undefined, { method: 'DELETE', token: alice.token, sessionId })).status).toBe(404);
    });

    it('refuses DELETE without a session id with 400', async () => {
      const reply = await mcpRaw(url, undefined, { method: 'DELETE', token: alice.token });
      expect(reply.status).toBe(400);
      expect(reply.message).toMatchObject({ error: { code: -32600 } });
    });

    it('refuses DELETE without a token with 401', async () => {
      const { sessionId } = await openRawSession(url, alice.token);
      const reply = await mcpRaw(url, undefined, { method: 'DELETE', sessionId });
      expect(reply.status).toBe(401);
      expect(reply.message).toMatchObject({ error: { code: -32001 } });
      expect((await rawCall(url, alice.token, sessionId, 'ping')).status).toBe(200);
    });
  });

  describe('HTTP framing', () => {
    it('answers GET /mcp with 405 and Allow', async () => {
      const reply = await mcpRaw(url, undefined, {
        method: 'GET',
        token: alice.token,
        headers: { Accept: 'text/event-stream', 'Content-Type': undefined },
      });
      expect(reply.status).toBe(405);
      expect(reply.headers.get('allow')).toMatch(/POST/);
      expect(reply.headers.get('allow')).toMatch(/DELETE/);
    });

    it.each([['text/plain'], ['application/x-www-form-urlencoded'], [undefined]])(
      'answers Content-Type %s with 415',
      async (contentType) => {
        const reply = await mcpRaw(url, initializeRequest(), {
          token: alice.token,
          headers: { 'Content-Type': contentType },
        });
        expect(reply.status).toBe(415);
        expect(reply.message).toMatchObject({ error: { code: -32600 } });
      },
    );

    it('answers an Accept without text/event-stream with 406', async () => {
      const reply = await mcpRaw(url, initializeRequest(), {
        token: alice.token,
        headers: { Accept: 'application/json' },
      });
      expect(reply.status).toBe(406);
      expect(reply.message).toMatchObject({ error: { code: -32600 } });
    });

    it('accepts Content-Type with a charset', async () => {
      const reply = await mcpRaw(url, initializeRequest(), {
        token: alice.token,
        headers: { 'Content-Type': 'application/json; charset=utf-8' },
      });
      expect(reply.status).toBe(200);
    });
  });

  describe('authentication (401 / -32001)', () => {
    it.each([
      ['no token', undefined],
      ['a malformed token', 'not-a-jwt'],
      ['a token signed with another key', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZ3RfeCJ9.c2lnbmF0dXJl'],
    ])('refuses initialize with %s', async (_, token) => {
      const reply = await mcpRaw(url, initializeRequest('2024-11-05', 4), { token });
      expect(reply.status).toBe(401);
      expect(reply.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(reply.message).toMatchObject({ jsonrpc: '2.0', id: 4, error: { code: -32001 } });
    });

    it('refuses an admin token: it is not an agent token', async () => {
      const admin = await new GatewayClient(url).adminToken();
      const reply = await mcpRaw(url, initializeRequest('2024-11-05', 4), { token: admin });
      expect(reply.status).toBe(401);
      expect(reply.message).toMatchObject({ id: 4, error: { code: -32001 } });
    });

    it('refuses a Basic credential', async () => {
      const reply = await mcpRaw(url, initializeRequest(), { headers: { Authorization: 'Basic YWdlbnQ6c2VjcmV0' } });
      expect(reply.status).toBe(401);
      expect(reply.message).toMatchObject({ error: { code: -32001 } });
    });

    it('refuses a request in a valid session without the token', async () => {
      const { sessionId } = await openRawSession(url, alice.token);
      const reply = await mcpRaw(url, { jsonrpc: '2.0', id: 8, method: 'tools/list', params: {} }, { sessionId });
      expect(reply.status).toBe(401);
      expect(reply.message).toMatchObject({ id: 8, error: { code: -32001 } });
    });
  });
});
