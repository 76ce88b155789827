import { createHmac, generateKeyPairSync, randomUUID, sign as rsaSign } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayClient } from './support/gateway-client.js';
import { decodeJwtPayload, forgeJwt } from './support/jwt.js';
import {
  createAgentWithToken,
  initializeRequest,
  mcpRaw,
  openRawSession,
  rawCall,
  type McpExchange,
  type TestAgent,
} from './support/mcp.js';
import { startPair, type Pair } from './support/pair.js';
import {
  freePort,
  gatewayEnv,
  GATEWAY_MAIN,
  runToExit,
  TEST_SIGNING_KEY,
  type RunningProcess,
} from './support/processes.js';
import { rawExchange, rawRequest, type RawReply } from './support/raw-http.js';
import { GET_ITEM_TOOL, type RecordingDownstream } from './support/recording-downstream.js';
import { HTTP_STATUS_DELIVERY } from './support/delivery.js';

/**
 * Issue 6, "hostile and malformed input": every group answered with a clear
 * 4xx in the spec's shape (JSON-RPC error bodies on /mcp, problem+json on
 * management), never a 5xx, never a crash, and nothing charged or forwarded.
 * Cases already covered elsewhere (mcp-transport, admin-auth,
 * management-api, revocation) are not repeated here.
 */

const ALLOWED_ORIGIN = 'https://app.example.com';
const ALLOWED_HOST = 'gateway.test';
const BUDGET = 50_000;

describe('hostile and malformed input (dist/main.js)', () => {
  let pair: Pair;
  let downstream: RunningProcess;
  let gateway: RunningProcess;
  let url: string;
  let client: GatewayClient;
  let admin: string;
  /** Hit with every hostile tools/call; must end with nothing charged. */
  let victim: TestAgent;
  let victimSession: string;

  // A second gateway in front of a recording downstream, with an origin and a host allow-list.
  let guardedPair: Pair<RecordingDownstream>;
  let recorder: RecordingDownstream;
  let guarded: RunningProcess;
  let guardedAgent: TestAgent;
  let guardedSession: string;

  beforeAll(async () => {
    // The guarded gateway's own address must be an allowed host, so its port is chosen up front.
    const guardedPort = await freePort();
    [pair, guardedPair] = await Promise.all([
      startPair({ gateway: { env: HTTP_STATUS_DELIVERY } }),
      startPair({
        downstream: { recording: [GET_ITEM_TOOL] },
        gateway: {
          env: {
            ...HTTP_STATUS_DELIVERY,
            PORT: String(guardedPort),
            Gw__Http__AllowedOrigins: ALLOWED_ORIGIN,
            Gw__Http__AllowedHosts: `${ALLOWED_HOST}, 127.0.0.1:${guardedPort}`,
          },
        },
      }),
    ]);
    ({ downstream, gateway, url, api: client } = pair);
    ({ downstream: recorder, gateway: guarded } = guardedPair);
    admin = await pair.adminToken();
    victim = await createAgentWithToken(client, admin, { label: 'victim', dailyTokenBudget: BUDGET });
    victimSession = (await openRawSession(url, victim.token)).sessionId;

    const guardedClient = new GatewayClient(guarded.url);
    guardedAgent = await createAgentWithToken(guardedClient, await guardedClient.adminToken(), {
      label: 'guarded',
      dailyTokenBudget: BUDGET,
    });
    guardedSession = (await openRawSession(guarded.url, guardedAgent.token)).sessionId;
  });

  afterAll(async () => {
    await Promise.all([pair?.stop(), guardedPair?.stop()]);
  });

  /** A tools/call of the victim inside its session. */
  const victimCall = (name: string, args: unknown, id: number | string = 9) =>
    mcpRaw(
      url,
      { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } },
      { token: victim.token, sessionId: victimSession },
    );

  describe('HTTP method, content type and accept', () => {
    it.each(['PUT', 'PATCH', 'OPTIONS'])('answers %s /mcp with 405, Allow and a JSON-RPC error', async (method) => {
      const reply = await rawRequest(`${url}/mcp`, {
        method,
        headers: {
          Authorization: `Bearer ${victim.token}`,
          'Content-Type': 'application/json',
          'Mcp-Session-Id': victimSession,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
      expect(reply.status).toBe(405);
      expect(reply.headers.allow).toMatch(/POST/);
      expect(JSON.parse(reply.body)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    });

    it.each([
      ['application/jsonp'],
      ['text/json'],
      ['application/json-seq'],
      ['multipart/form-data; boundary=x'],
      ['application/json, text/html'],
    ])('answers Content-Type %s with 415 / -32600', async (contentType) => {
      expectRpcError(
        await mcpRaw(url, initializeRequest(), { token: victim.token, headers: { 'Content-Type': contentType } }),
        415,
        -32600,
      );
    });

    it.each([['text/html'], ['application/xml'], ['image/*']])(
      'answers Accept %s with 406 / -32600',
      async (accept) => {
        expectRpcError(
          await mcpRaw(url, initializeRequest(), { token: victim.token, headers: { Accept: accept } }),
          406,
          -32600,
        );
      },
    );
  });

  describe('bodies: empty, truncated, not JSON, deeply nested, oversized', () => {
    it.each([
      ['an empty body', ''],
      ['whitespace', ' \n\t '],
      ['a truncated object', '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{'],
      ['a truncated string', '{"jsonrpc":"2.0","id":1,"method":"tools/li'],
      ['plain text', 'hello gateway'],
      ['control characters', '\u0000\u0001\u0002'],
      ['trailing garbage', '{"jsonrpc":"2.0","id":1,"method":"ping"}}'],
      ['two objects', '{"jsonrpc":"2.0","id":1,"method":"ping"}{"jsonrpc":"2.0","id":2,"method":"ping"}'],
      ['NaN', 'NaN'],
      ['single quotes', "{'jsonrpc':'2.0','id':1,'method':'ping'}"],
    ])('answers %s with 400 / -32700 and id null', async (_, body) => {
      const reply = await mcpRaw(url, body, { token: victim.token, sessionId: victimSession });
      expectRpcError(reply, 400, -32700);
      expect(reply.message.id).toBeNull();
    });

    it('ignores a UTF-8 byte order mark before the JSON (RFC 8259 8.1 allows it)', async () => {
      const reply = await mcpRaw(url, '\uFEFF{"jsonrpc":"2.0","id":1,"method":"ping"}', {
        token: victim.token,
        sessionId: victimSession,
      });
      expect(reply.status).toBe(200);
      expect(reply.message).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    });

    it('answers bytes that are not UTF-8 with 400 / -32700', async () => {
      const reply = await rawRequest(`${url}/mcp`, {
        method: 'POST',
        headers: mcpHeaders(victim.token, victimSession),
        chunks: [Buffer.from([0xff, 0xfe, 0x7b, 0xc3, 0x28, 0x7d]).toString('latin1')],
      });
      expect(reply.status).toBe(400);
      expect(JSON.parse(reply.body)).toMatchObject({ id: null, error: { code: -32700 } });
    });

    it('answers 100,000 nested arrays with 400 / -32600 (a batch), without running out of stack', async () => {
      const depth = 100_000;
      const reply = await mcpRaw(url, '['.repeat(depth) + ']'.repeat(depth), {
        token: victim.token,
        sessionId: victimSession,
      });
      expectRpcError(reply, 400, -32600);
    });

    const nested = (depth: number, leaf = '1') => '{"a":'.repeat(depth) + leaf + '}'.repeat(depth);
    it.each([
      [
        'tools/call arguments',
        (n: string) =>
          `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_product","arguments":{"sku":${n}}}}`,
      ],
      [
        'an undeclared argument',
        (n: string) =>
          `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_product","arguments":{"sku":"KB-100","x":${n}}}}`,
      ],
      [
        'the tool name',
        (n: string) => `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":${n},"arguments":{}}}`,
      ],
      ['tools/list params', (n: string) => `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":${n}}}`],
      [
        'initialize capabilities',
        (n: string) =>
          `{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2024-11-05","clientInfo":{"name":"x","version":"1"},"capabilities":${n}}}`,
      ],
      ['a notification', (n: string) => `{"jsonrpc":"2.0","method":"notifications/progress","params":${n}}`],
    ])(
      'answers 50,000 nested objects in %s with 400 / -32600 (deeper than 64 levels), opening no session',
      async (_, build) => {
        const reply = await mcpRaw(url, build(nested(50_000)), { token: victim.token, sessionId: victimSession });
        expectRpcError(reply, 400, -32600);
        expect(reply.message.error.message).toMatch(/deeper than 64/);
        expect(reply.headers.get('mcp-session-id')).toBeNull();
      },
    );

    it('answers 50,000 nested objects as the id with 400 / -32600 and id null', async () => {
      const reply = await mcpRaw(url, `{"jsonrpc":"2.0","id":${nested(50_000)},"method":"ping"}`, {
        token: victim.token,
        sessionId: victimSession,
      });
      expectRpcError(reply, 400, -32600);
      expect(reply.message.id).toBeNull();
    });

    it('accepts arguments nested as deep as real clients send (here 40 levels): refused by the tool schema, not by the limit', async () => {
      const reply = await victimCall('get_product', { sku: JSON.parse(nested(40)) });
      expectRpcError(reply, 400, -32602);
    });

    it('answers a chunked body over Gw:Mcp:MaxBodyBytes with 413 and Connection: close', async () => {
      const chunk = 'a'.repeat(64 * 1024);
      const reply = await rawRequest(`${url}/mcp`, {
        method: 'POST',
        headers: mcpHeaders(victim.token, victimSession),
        chunks: [
          '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"',
          ...Array.from({ length: 20 }, () => chunk),
          '"}}',
        ],
      });
      expect(reply.status).toBe(413);
      expect(reply.headers.connection).toBe('close');
      expect(JSON.parse(reply.body)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    });

    it('takes a client that hangs up halfway through its body calmly: no unexpected error, still serving', async () => {
      const head = [
        'POST /mcp HTTP/1.1',
        `Host: ${new URL(url).host}`,
        'Content-Type: application/json',
        `Authorization: Bearer ${victim.token}`,
        'Content-Length: 400',
      ].join('\r\n');
      const answer = await rawExchange(url, head, '{"jsonrpc":"2.0","id":1,', 200);
      // The half-closed socket may still get the 400, or nothing at all.
      expect(answer === '' || /^HTTP\/1\.1 400 /.test(answer)).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(gateway.output()).not.toMatch(/unexpected error/i);
      expect((await fetch(`${url}/health/live`)).status).toBe(200);
    });

    it('answers a Content-Length over the limit with 413 before any body byte is sent', async () => {
      const head = [
        'POST /mcp HTTP/1.1',
        `Host: ${new URL(url).host}`,
        'Content-Type: application/json',
        `Authorization: Bearer ${victim.token}`,
        'Content-Length: 1073741824',
      ].join('\r\n');
      const answer = await rawExchange(url, head);
      expect(answer).toMatch(/^HTTP\/1\.1 413 /);
      expect(answer).toMatch(/\r\nconnection: close\r\n/i);
      expect(answer).toContain('"code":-32600');
    });
  });

  describe('JSON-RPC shape', () => {
    it.each([
      ['no jsonrpc member', { id: 1, method: 'ping' }],
      ['jsonrpc as a number', { jsonrpc: 2.0, id: 1, method: 'ping' }],
      ['jsonrpc "2.1"', { jsonrpc: '2.1', id: 1, method: 'ping' }],
      ['a null id', { jsonrpc: '2.0', id: null, method: 'ping' }],
      ['a fractional id', { jsonrpc: '2.0', id: 1.5, method: 'ping' }],
      ['a boolean id', { jsonrpc: '2.0', id: true, method: 'ping' }],
      ['an array id', { jsonrpc: '2.0', id: [1], method: 'ping' }],
      ['an id beyond 2^53', '{"jsonrpc":"2.0","id":18014398509481984,"method":"ping"}'],
      ['a number as params', { jsonrpc: '2.0', id: 1, method: 'tools/list', params: 42 }],
      [
        'an array as params',
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: ['get_product', { sku: 'KB-100' }] },
      ],
      ['null params', { jsonrpc: '2.0', id: 1, method: 'tools/list', params: null }],
      ['no method and no result', { jsonrpc: '2.0', id: 1 }],
      [
        'a response with both result and error',
        { jsonrpc: '2.0', id: 1, result: {}, error: { code: 1, message: 'x' } },
      ],
      ['a response whose error has no code', { jsonrpc: '2.0', id: 1, error: { message: 'x' } }],
      ['a JSON number', 42],
      ['JSON null', null],
      [
        'a batch of tools/call requests',
        [1, 2, 3].map((id) => ({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: 'get_product', arguments: { sku: 'KB-100' } },
        })),
      ],
      ['a batch of notifications', [{ jsonrpc: '2.0', method: 'notifications/initialized' }]],
    ])('answers %s with 400 / -32600', async (_, body) => {
      const reply = await mcpRaw(url, body, { token: victim.token, sessionId: victimSession });
      expectRpcError(reply, 400, -32600);
      expect(reply.message.id === null || reply.message.id === 1).toBe(true);
    });

    it.each([
      ['a result', { jsonrpc: '2.0', id: 1, result: { content: [] } }],
      ['an error', { jsonrpc: '2.0', id: 'x', error: { code: -32000, message: 'no' } }],
      ['an error with a null id', { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse' } }],
    ])('accepts a stray response carrying %s with 202 and no body (the gateway sends no requests)', async (_, body) => {
      const reply = await mcpRaw(url, body, { token: victim.token, sessionId: victimSession });
      expect(reply.status).toBe(202);
      expect(reply.text).toBe('');
    });

    it('still authenticates a stray response: no token is 401', async () => {
      expectRpcError(
        await mcpRaw(url, { jsonrpc: '2.0', id: 1, result: {} }, { sessionId: victimSession }),
        401,
        -32001,
      );
    });
  });

  describe('tool names and route values carrying traversal or separators', () => {
    it.each([
      '../get_product',
      'get_product/../list_orders',
      '%2e%2e%2fget_product',
      'get_product%00',
      'get_product\u0000',
      '..\\get_product',
      'GET_PRODUCT',
      ' get_product',
      '',
    ])('refuses tool name %j with 400 / -32602', async (name) => {
      expectRpcError(await victimCall(name, { sku: 'KB-100' }), 400, -32602);
    });

    it('refuses a tool name that is not a string with 400 / -32602', async () => {
      for (const name of [42, null, ['get_product'], { name: 'get_product' }]) {
        expectRpcError(await victimCall(name as never, { sku: 'KB-100' }), 400, -32602);
      }
    });

    const HOSTILE_ROUTE_VALUES = [
      '..',
      '.',
      '',
      '../admin',
      '../../etc/passwd',
      'a/b',
      '%2e%2e',
      '%2E%2E%2Fadmin',
      '%2F',
      'a%2Fb',
      '%252e%252e',
      '%25252F',
      'a\\b',
      '%5c',
      '..%5c..%5cwindows',
      'a\u0000b',
      '%00',
      'a%00.json',
      'line\r\nX-Injected: 1',
      '%0d%0aX-Injected:%201',
    ];

    it.each(HOSTILE_ROUTE_VALUES)(
      'refuses route value %j with 400 / -32602, sending nothing downstream',
      async (value) => {
        const before = recorder.requests.length;
        const reply = await mcpRaw(
          guarded.url,
          { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'get_item', arguments: { id: value } } },
          { token: guardedAgent.token, sessionId: guardedSession },
        );
        expectRpcError(reply, 400, -32602);
        expect(reply.message.error.data).toMatchObject({ fields: [expect.objectContaining({ path: 'id' })] });
        expect(recorder.requests.slice(before)).toEqual([]);
      },
    );

    it('forwards an ordinary value percent-encoded, so the recording downstream sees every call that does get through', async () => {
      const reply = await mcpRaw(
        guarded.url,
        { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'get_item', arguments: { id: 'A 1?x#y' } } },
        { token: guardedAgent.token, sessionId: guardedSession },
      );
      expect(reply.status).toBe(200);
      expect(recorder.requests.at(-1)).toEqual({ method: 'GET', target: '/items/A%201%3Fx%23y', body: '' });
      const targets = recorder.requests.map((request) => request.target);
      expect(
        targets.every((target) => /^\/items\/[^/\\]+$/.test(target) && !/%2f|%5c|%00|%0d|%0a|\.\./i.test(target)),
      ).toBe(true);
    });

    it('refuses the same values on the sample downstream (get_product), nothing charged', async () => {
      for (const sku of ['..', '%2e%2e', 'a%2Fb', 'a\\b', 'a\u0000b'])
        expectRpcError(await victimCall('get_product', { sku }), 400, -32602);
    });
  });

  describe('JWTs', () => {
    let claims: Record<string, unknown>;
    const hs =
      (algorithm: string, key: string = TEST_SIGNING_KEY) =>
      (input: string) =>
        createHmac(algorithm, key).update(input).digest();
    const now = () => Math.floor(Date.now() / 1000);

    beforeAll(() => {
      claims = decodeJwtPayload(victim.token);
    });

    /** initialize with the token; the reply must be 401 / -32001 with the request's id. */
    async function expectRefused(token: string): Promise<McpExchange> {
      const reply = await mcpRaw(url, initializeRequest('2024-11-05', 21), { token });
      expectRpcError(reply, 401, -32001);
      expect(reply.message.id).toBe(21);
      expect(reply.headers.get('www-authenticate')).toMatch(/^Bearer/);
      return reply;
    }

    it('accepts a token forged here with the right key and claims (so the refusals below are about one change each)', async () => {
      const token = forgeJwt({ alg: 'HS256', typ: 'JWT' }, { ...claims, jti: randomUUID() }, hs('sha256'));
      expect((await mcpRaw(url, initializeRequest(), { token })).status).toBe(200);
    });

    it.each([
      ['alg none, no signature', () => forgeJwt({ alg: 'none', typ: 'JWT' }, claims, () => '')],
      ['alg "None"', () => forgeJwt({ alg: 'None' }, claims, () => '')],
      ['alg none with the real signature kept', () => forgeJwt({ alg: 'none' }, claims, hs('sha256'))],
      ['HS512 with the right key', () => forgeJwt({ alg: 'HS512', typ: 'JWT' }, claims, hs('sha512'))],
      ['HS384 with the right key', () => forgeJwt({ alg: 'HS384', typ: 'JWT' }, claims, hs('sha384'))],
      ['RS256 with a generated key embedded as jwk', () => rs256WithEmbeddedKey(claims)],
      ['HS256 with another key', () => forgeJwt({ alg: 'HS256' }, claims, hs('sha256', 'x'.repeat(48)))],
      ['wrong aud (admin)', () => forgeJwt({ alg: 'HS256' }, { ...claims, aud: 'tollgate:admin' }, hs('sha256'))],
      ['wrong aud (another service)', () => forgeJwt({ alg: 'HS256' }, { ...claims, aud: 'billing' }, hs('sha256'))],
      ['aud missing', () => forgeJwt({ alg: 'HS256' }, { ...claims, aud: undefined }, hs('sha256'))],
      ['wrong iss', () => forgeJwt({ alg: 'HS256' }, { ...claims, iss: 'someone-else' }, hs('sha256'))],
      ['no exp', () => forgeJwt({ alg: 'HS256' }, { ...claims, exp: undefined }, hs('sha256'))],
      ['exp as a string', () => forgeJwt({ alg: 'HS256' }, { ...claims, exp: String(now() + 3600) }, hs('sha256'))],
      [
        'expired exp',
        () => forgeJwt({ alg: 'HS256' }, { ...claims, iat: now() - 7200, exp: now() - 3600 }, hs('sha256')),
      ],
      ['nbf in the future', () => forgeJwt({ alg: 'HS256' }, { ...claims, nbf: now() + 3600 }, hs('sha256'))],
      [
        'another revocation generation',
        () => forgeJwt({ alg: 'HS256' }, { ...claims, gen: Number(claims.gen) + 1 }, hs('sha256')),
      ],
      [
        'scopes that are not a list',
        () => forgeJwt({ alg: 'HS256' }, { ...claims, scopes: 'orders:write' }, hs('sha256')),
      ],
      [
        'an unknown agent id',
        () => forgeJwt({ alg: 'HS256' }, { ...claims, sub: 'agt_doesnotexist0000000000' }, hs('sha256')),
      ],
      ['a bit flipped in the signature', () => flipBit(victim.token, 2)],
      ['a bit flipped in the payload', () => flipBit(victim.token, 1)],
      ['a bit flipped in the header', () => flipBit(victim.token, 0)],
      ['two segments', () => victim.token.split('.').slice(0, 2).join('.')],
      ['four segments', () => `${victim.token}.x`],
      [
        'a header that is not JSON',
        () => `${Buffer.from('nope').toString('base64url')}.${victim.token.split('.').slice(1).join('.')}`,
      ],
    ])('refuses a token with %s: 401 / -32001', async (_, make) => {
      await expectRefused(make());
    });

    it('refuses the token of a deleted agent and of a deactivated one', async () => {
      const deleted = await createAgentWithToken(client, admin, { label: 'deleted', dailyTokenBudget: 100 });
      const deactivated = await createAgentWithToken(client, admin, { label: 'deactivated', dailyTokenBudget: 100 });
      expect((await client.request('DELETE', `/management/agents/${deleted.agentId}`, admin)).status).toBe(204);
      expect(
        (await client.request('PUT', `/management/agents/${deactivated.agentId}`, admin, { isActive: false })).status,
      ).toBe(200);
      await expectRefused(deleted.token);
      await expectRefused(deactivated.token);
    });

    it('refuses two Authorization headers, even when both carry the same valid token', async () => {
      for (const tokens of [
        [victim.token, victim.token],
        [victim.token, 'not-a-token'],
      ]) {
        const reply = await rawRequest(`${url}/mcp`, {
          method: 'POST',
          headers: { ...mcpHeaders(undefined, victimSession), Authorization: tokens.map((token) => `Bearer ${token}`) },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
        });
        expect(reply.status).toBe(401);
        expect(JSON.parse(reply.body)).toMatchObject({ jsonrpc: '2.0', error: { code: -32001 } });
      }
    });

    it('refuses two Authorization headers on management with a 401 problem', async () => {
      const reply = await rawRequest(`${url}/management/agents`, {
        headers: { Authorization: [`Bearer ${admin}`, `Bearer ${admin}`] },
      });
      expect(reply.status).toBe(401);
      expect(reply.contentType).toMatch(/^application\/problem\+json/);
    });

    it.each([
      ['"Bearer" with no token', 'Bearer'],
      ['"Bearer " and spaces', 'Bearer    '],
      ['a token with a space inside', 'Bearer abc def'],
      ['a token with characters outside base64url', 'Bearer abc<script>'],
      ['a second scheme after the token', 'Bearer x.y.z, Basic Zm9v'],
      ['"Token" scheme', 'Token abc'],
    ])('refuses %s with 401 / -32001', async (_, authorization) => {
      expectRpcError(
        await mcpRaw(url, initializeRequest(), { headers: { Authorization: authorization } }),
        401,
        -32001,
      );
    });

    it('accepts the scheme in any case ("bearer", RFC 9110 11.1)', async () => {
      const reply = await mcpRaw(url, initializeRequest(), { headers: { Authorization: `bearer ${victim.token}` } });
      expect(reply.status).toBe(200);
    });

    it('answers a token beyond the header limit (16 KiB) with 431 from the HTTP server, an 8 KB one with 401', async () => {
      const head = (token: string) =>
        [
          'POST /mcp HTTP/1.1',
          `Host: ${new URL(url).host}`,
          'Content-Type: application/json',
          `Authorization: Bearer ${token}`,
          'Content-Length: 0',
        ].join('\r\n');
      expect(await rawExchange(url, head(`${victim.token}${'A'.repeat(20 * 1024)}`))).toMatch(/^HTTP\/1\.1 431 /);
      // 100 KB: node answers 431 and closes with most of the header unread, so the client may see a reset instead.
      const huge = await rawExchange(url, head(`${victim.token}${'A'.repeat(100 * 1024)}`));
      expect(huge === '' || /^HTTP\/1\.1 431 /.test(huge)).toBe(true);
      expectRpcError(
        await mcpRaw(url, initializeRequest(), { token: `${victim.token}${'A'.repeat(8 * 1024)}` }),
        401,
        -32001,
      );
    });
  });

  describe('session ids', () => {
    it.each([
      ['random, of the right shape', randomUUID().replaceAll('-', '')],
      ['10 KB long', 'A'.repeat(10 * 1024)],
      ['with encoded CR/LF', `${'A'.repeat(16)}%0d%0aX-Injected:%201`],
      ['with traversal', '../../sessions/other'],
      ['with a Redis glob', '*'],
      ['of 32 dots', '.'.repeat(32)],
    ])('answers a session id %s with 404 / -32600', async (_, sessionId) => {
      const reply = await rawCall(url, victim.token, sessionId, 'tools/list', {}, 31);
      expectRpcError(reply, 404, -32600);
      expect(reply.message.id).toBe(31);
    });

    it('answers DELETE with a 10 KB session id with 404', async () => {
      expectRpcError(
        await mcpRaw(url, undefined, { method: 'DELETE', token: victim.token, sessionId: 'A'.repeat(10 * 1024) }),
        404,
        -32600,
      );
    });

    it("answers another agent's session on tools/call with 404 and forwards nothing", async () => {
      const guardedClient = new GatewayClient(guarded.url);
      const other = await createAgentWithToken(guardedClient, await guardedClient.adminToken(), {
        label: 'other',
        dailyTokenBudget: BUDGET,
      });
      const before = recorder.requests.length;
      const reply = await mcpRaw(
        guarded.url,
        { jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'get_item', arguments: { id: 'stolen' } } },
        { token: other.token, sessionId: guardedSession },
      );
      expectRpcError(reply, 404, -32600);
      expect(recorder.requests.length).toBe(before);
    });
  });

  describe('Origin and Host (DNS rebinding)', () => {
    it.each([
      'https://evil.example',
      'http://localhost.evil.example',
      'http://127.0.0.1.evil.example',
      'null',
      'file://',
      'http://[::2]',
    ])('refuses Origin %s on /mcp with 403 / -32003', async (origin) => {
      expectRpcError(
        await mcpRaw(url, initializeRequest(), { token: victim.token, headers: { Origin: origin } }),
        403,
        -32003,
      );
    });

    it('refuses a foreign Origin on management and auth with a 403 problem', async () => {
      for (const path of ['/management/agents', '/auth/admin/token']) {
        const reply = await rawRequest(`${url}${path}`, {
          method: path.startsWith('/auth') ? 'POST' : 'GET',
          headers: {
            Authorization: `Bearer ${admin}`,
            Origin: 'https://evil.example',
            'Content-Type': 'application/json',
          },
          body: '{}',
        });
        expect(reply.status).toBe(403);
        expect(reply.contentType).toMatch(/^application\/problem\+json/);
        expect(JSON.parse(reply.body)).toMatchObject({ status: 403 });
      }
    });

    it.each(['http://localhost:3000', 'http://127.0.0.1:6274', 'http://[::1]:8080', 'https://localhost'])(
      'allows loopback Origin %s',
      async (origin) => {
        expect(
          (await mcpRaw(url, initializeRequest(), { token: victim.token, headers: { Origin: origin } })).status,
        ).toBe(200);
      },
    );

    it('honours Gw:Http:AllowedOrigins: the listed origin passes, others are 403', async () => {
      const host = new HostClient(guarded.url, ALLOWED_HOST);
      expect((await host.initialize(guardedAgent.token, { Origin: ALLOWED_ORIGIN })).status).toBe(200);
      for (const origin of ['https://app.example.com.evil.example', 'http://app.example.com', 'https://evil.example']) {
        const refused = await host.initialize(guardedAgent.token, { Origin: origin });
        expect(refused.status).toBe(403);
        expect(JSON.parse(refused.body)).toMatchObject({ error: { code: -32003 } });
      }
    });

    it('honours Gw:Http:AllowedHosts: listed hosts pass, any other Host is 403, loopback included', async () => {
      expect((await new HostClient(guarded.url, ALLOWED_HOST).initialize(guardedAgent.token)).status).toBe(200);
      for (const host of ['evil.example', 'localhost', 'gateway.test.evil.example']) {
        const refused = await new HostClient(guarded.url, host).initialize(guardedAgent.token);
        expect(refused.status).toBe(403);
        expect(JSON.parse(refused.body)).toMatchObject({ error: { code: -32003 } });
      }
    });

    it('refuses a rebound host name on a gateway bound to 127.0.0.1 (no allow-list): 403 on /mcp and management', async () => {
      const port = new URL(url).port;
      for (const host of ['evil.example', `evil.example:${port}`, '127.0.0.1.nip.io']) {
        const mcp = await new HostClient(url, host).initialize(victim.token);
        expect(mcp.status).toBe(403);
        expect(JSON.parse(mcp.body)).toMatchObject({ error: { code: -32003 } });
        const management = await rawRequest(`${url}/management/agents`, {
          headers: { Host: host, Authorization: `Bearer ${admin}` },
        });
        expect(management.status).toBe(403);
        expect(management.contentType).toMatch(/^application\/problem\+json/);
      }
    });

    it('answers liveness whatever the Host: orchestrators probe by IP or service name', async () => {
      expect((await rawRequest(`${url}/health/live`, { headers: { Host: 'evil.example' } })).status).toBe(200);
    });
  });

  describe('CR/LF in values that would become headers', () => {
    it('refuses to start when a configured downstream header carries CR/LF', async () => {
      const result = await runToExit(
        GATEWAY_MAIN,
        gatewayEnv({
          downstreamUrl: downstream.url,
          env: { Gw__Downstream__Headers__X_Api_Key: 'secret\r\nX-Injected: 1' },
        }),
      );
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('Gw:Downstream:Headers:X_Api_Key');
      expect(result.stderr).not.toContain('secret');
    });

    it.each([
      ['a bare CR in Mcp-Session-Id', `Mcp-Session-Id: ${'A'.repeat(16)}\rX-Injected: 1`],
      ['a bare LF in Mcp-Session-Id', `Mcp-Session-Id: ${'A'.repeat(16)}\nX-Injected: 1`],
      ['a NUL in MCP-Protocol-Version', 'MCP-Protocol-Version: 2024-11-05\u0000'],
      ['an obsolete line folding of MCP-Protocol-Version', 'MCP-Protocol-Version: 2024-11-05\r\n X-Injected: 1'],
    ])('refuses %s at the HTTP parser with 400, never reaching the gateway', async (_, header) => {
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
      const head = [
        'POST /mcp HTTP/1.1',
        `Host: ${new URL(url).host}`,
        'Content-Type: application/json',
        `Authorization: Bearer ${victim.token}`,
        header,
        `Content-Length: ${Buffer.byteLength(body)}`,
      ].join('\r\n');
      const answer = await rawExchange(url, head, body);
      expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    });

    it.each([
      ['encoded CR/LF', '2024-11-05%0d%0aX-Injected: 1'],
      ['a value with a comma list', '2024-11-05, 2025-06-18'],
      ['a very long value', '2024-11-05'.repeat(500)],
    ])(
      'refuses MCP-Protocol-Version with %s with 400 / -32600 and reflects nothing into response headers',
      async (_, version) => {
        const reply = await mcpRaw(
          url,
          { jsonrpc: '2.0', id: 1, method: 'ping' },
          { token: victim.token, sessionId: victimSession, headers: { 'MCP-Protocol-Version': version } },
        );
        expectRpcError(reply, 400, -32600);
        expect(reply.headers.get('x-injected')).toBeNull();
        const headerValues: string[] = [];
        reply.headers.forEach((value) => headerValues.push(value));
        expect(headerValues.some((value) => value.includes('X-Injected'))).toBe(false);
      },
    );
  });

  describe('management bodies and ids', () => {
    const nested = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
    it.each([
      ['50,000 nested objects in a field', `{"label":${nested(50_000)},"dailyTokenBudget":1}`],
      ['50,000 nested objects in an unknown field', `{"label":"x","dailyTokenBudget":1,"x":${nested(50_000)}}`],
      ['100,000 nested arrays', '['.repeat(100_000) + ']'.repeat(100_000)],
      ['a prototype key', '{"label":"x","dailyTokenBudget":1,"__proto__":{"isActive":false}}'],
      ['a budget beyond 2^53', '{"label":"x","dailyTokenBudget":18014398509481984}'],
      ['a label with NUL and CR/LF', '{"label":"a\u0000b\r\nc","dailyTokenBudget":"1"}'],
    ])('refuses %s in POST /management/agents with a 400 problem', async (_, body) => {
      const reply = await client.request('POST', '/management/agents', admin, body);
      expect(reply.status).toBe(400);
      expect(reply.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    });

    it.each(['..', '%2e%2e', '..%2F..%2Fhealth', 'agt_x%00', `agt_${'x'.repeat(10 * 1024)}`, '%0d%0aX-Injected:%201'])(
      'answers agent id %j with a 404 problem',
      async (agentId) => {
        const reply = await client.request('GET', `/management/agents/${agentId}`, admin);
        expect(reply.status).toBe(404);
        expect(reply.headers.get('x-injected')).toBeNull();
      },
    );
  });

  describe('request framing', () => {
    it('refuses Content-Length together with Transfer-Encoding (request smuggling) with 400 at the HTTP parser', async () => {
      const head = [
        'POST /mcp HTTP/1.1',
        `Host: ${new URL(url).host}`,
        'Content-Type: application/json',
        `Authorization: Bearer ${victim.token}`,
        'Content-Length: 4',
        'Transfer-Encoding: chunked',
      ].join('\r\n');
      expect(await rawExchange(url, head, '0\r\n\r\n')).toMatch(/^HTTP\/1\.1 400 /);
    });

    it('refuses two Content-Length headers that disagree with 400 at the HTTP parser', async () => {
      const head = [
        'POST /mcp HTTP/1.1',
        `Host: ${new URL(url).host}`,
        'Content-Type: application/json',
        'Content-Length: 2',
        'Content-Length: 40',
      ].join('\r\n');
      expect(await rawExchange(url, head, '{}')).toMatch(/^HTTP\/1\.1 400 /);
    });
  });

  describe('after all of the above', () => {
    it('charged nothing to the victim agent: used 0, the whole budget remaining', async () => {
      const budget = await client.request('GET', `/management/agents/${victim.agentId}/budget`, admin);
      expect(budget.status).toBe(200);
      expect(budget.body).toMatchObject({ used: 0, remaining: BUDGET, dailyTokenBudget: BUDGET });
    });

    it('both gateways are alive, live, and logged no unexpected error', async () => {
      for (const process of [gateway, guarded]) {
        expect(process.child.exitCode).toBeNull();
        expect(process.child.signalCode).toBeNull();
        expect(process.output()).not.toMatch(/unexpected error|uncaught|unhandled/i);
      }
      expect((await fetch(`${url}/health/live`)).status).toBe(200);
      expect((await fetch(`${guarded.url}/health/live`)).status).toBe(200);
    });
  });
});

function expectRpcError(reply: McpExchange, status: number, code: number): void {
  expect({ status: reply.status, body: reply.text }).toMatchObject({ status });
  expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
  expect(reply.message).toMatchObject({ jsonrpc: '2.0', error: { code, message: expect.any(String) } });
}

function mcpHeaders(token: string | undefined, sessionId?: string): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    ...(sessionId === undefined ? {} : { 'Mcp-Session-Id': sessionId }),
    ...(token === undefined ? {} : { Authorization: `Bearer ${token}` }),
  };
}

/** Flips the lowest bit of the first byte of one segment (0 header, 1 payload, 2 signature). */
function flipBit(token: string, segment: number): string {
  const parts = token.split('.');
  const bytes = Buffer.from(parts[segment]!, 'base64url');
  bytes[0] = bytes[0]! ^ 1;
  parts[segment] = bytes.toString('base64url');
  return parts.join('.');
}

/** The classic "trust the key in the header" attack: RS256, signed with a fresh key that the header carries. */
function rs256WithEmbeddedKey(claims: Record<string, unknown>): string {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = publicKey.export({ format: 'jwk' });
  return forgeJwt({ alg: 'RS256', typ: 'JWT', jwk }, claims, (input) =>
    rsaSign('sha256', Buffer.from(input), privateKey),
  );
}

/** Requests to a gateway with a chosen Host header, which fetch cannot set. */
class HostClient {
  constructor(
    readonly url: string,
    readonly host: string,
  ) {}

  request(method: string, path: string, headers: Record<string, string>, body?: string): Promise<RawReply> {
    return rawRequest(`${this.url}${path}`, { method, headers: { Host: this.host, ...headers }, body });
  }

  initialize(token: string, headers: Record<string, string> = {}): Promise<RawReply> {
    return this.request('POST', '/mcp', { ...mcpHeaders(token), ...headers }, JSON.stringify(initializeRequest()));
  }
}
