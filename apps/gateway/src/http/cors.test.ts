import { UnauthorizedError } from '@tollgate/gateway-core/errors';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { MCP_CORS, mcpCors } from './cors.js';
import { errorResponse } from './error-response.js';
import { checkOrigin, type OriginPolicy } from './request-guards.js';

const LISTED = 'https://app.example.com';
const LOOPBACK_ONLY: OriginPolicy = { allowedOrigins: [LISTED], allowedHosts: [], listensOnLoopbackOnly: true };
const PUBLIC: OriginPolicy = { allowedOrigins: [LISTED], allowedHosts: [], listensOnLoopbackOnly: false };
const NOTHING_LISTED: OriginPolicy = { allowedOrigins: [], allowedHosts: [], listensOnLoopbackOnly: true };
const HOST = '127.0.0.1:8080';

/** The gateway's order: CORS, then the origin guard, then a route with the /mcp answers that matter here. */
function gateway(policy: OriginPolicy): Hono {
  const app = new Hono();
  app.use('/mcp', mcpCors(policy));
  app.use('/mcp', async (c, next) => {
    checkOrigin(c, policy);
    await next();
  });
  app.post('/mcp', (c) => {
    const outcome = c.req.query('outcome');
    if (outcome === 'unauthorized') throw new UnauthorizedError('no token', 'missing');
    if (outcome === 'crash') throw new Error('boom');
    if (outcome === 'bad-request')
      return c.json({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'bad' } }, 400);
    if (outcome === 'streamed') {
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(': keep-alive\n\nevent: message\ndata: {}\n\n'));
          controller.close();
        },
      });
      return c.body(stream, 200, { 'Content-Type': 'text/event-stream' });
    }
    c.header('Mcp-Session-Id', 'session-1');
    return c.body('event: message\ndata: {}\n\n', 200, { 'Content-Type': 'text/event-stream' });
  });
  // As mcp-transport/mcp-route.ts: every other method is 405, OPTIONS included.
  app.all('/mcp', (c) => c.json({ error: 'method not allowed' }, 405));
  app.onError((error, c) => errorResponse(c, error));
  return app;
}

function preflight(app: Hono, origin: string | undefined, host = HOST): Response | Promise<Response> {
  const headers: Record<string, string> = {
    Host: host,
    'Access-Control-Request-Method': 'POST',
    'Access-Control-Request-Headers': 'authorization,content-type,mcp-session-id',
  };
  if (origin !== undefined) headers.Origin = origin;
  return app.request('/mcp', { method: 'OPTIONS', headers });
}

function post(app: Hono, origin: string | undefined, outcome = 'ok'): Response | Promise<Response> {
  const headers: Record<string, string> = { Host: HOST, 'Content-Type': 'application/json' };
  if (origin !== undefined) headers.Origin = origin;
  return app.request(`/mcp?outcome=${outcome}`, { method: 'POST', headers, body: '{}' });
}

const list = (value: string | null) =>
  (value ?? '')
    .split(',')
    .map((item) => item.trim().toLowerCase())
    .filter(Boolean);
const corsHeaders = (response: Response) => {
  const names: string[] = [];
  response.headers.forEach((_value, name) => {
    if (name.startsWith('access-control-')) names.push(name);
  });
  return names;
};

describe('mcpCors: preflight', () => {
  it('answers an allowed origin 204 with the origin echoed, the methods, the headers and a max age', async () => {
    const response = await preflight(gateway(LOOPBACK_ONLY), LISTED);
    expect(response.status).toBe(204);
    expect(response.headers.get('Access-Control-Allow-Origin')).toBe(LISTED);
    expect(list(response.headers.get('Vary'))).toContain('origin');
    expect(list(response.headers.get('Access-Control-Allow-Methods'))).toEqual(['post', 'get', 'delete', 'options']);
    expect(list(response.headers.get('Access-Control-Allow-Headers'))).toEqual([
      'authorization',
      'content-type',
      'accept',
      'mcp-session-id',
      'mcp-protocol-version',
      'last-event-id',
      'mcp-method',
      'mcp-name',
    ]);
    expect(response.headers.get('Access-Control-Max-Age')).toBe(String(MCP_CORS.maxAgeSeconds));
    // The credential is a bearer token the page sends itself: no cookies ride along.
    expect(response.headers.has('Access-Control-Allow-Credentials')).toBe(false);
    expect(await response.text()).toBe('');
  });

  it.each(['http://localhost:3000', 'http://127.0.0.1:6274', 'http://[::1]:8080', 'https://localhost'])(
    'answers loopback origin %s with nothing listed, as the guard lets its requests through',
    async (origin) => {
      for (const policy of [NOTHING_LISTED, { ...NOTHING_LISTED, listensOnLoopbackOnly: false }]) {
        const response = await preflight(gateway(policy), origin);
        expect(response.status).toBe(204);
        expect(response.headers.get('Access-Control-Allow-Origin')).toBe(origin);
      }
    },
  );

  it.each([
    'https://evil.example',
    'https://app.example.com.evil.example',
    'http://app.example.com',
    'http://localhost.evil.example',
    'null',
    'file://',
  ])('refuses origin %s with 403 and no CORS headers', async (origin) => {
    for (const policy of [LOOPBACK_ONLY, PUBLIC]) {
      const response = await preflight(gateway(policy), origin);
      expect(response.status).toBe(403);
      expect(corsHeaders(response)).toEqual([]);
    }
  });

  it('refuses a foreign Host on a loopback-only gateway (DNS rebinding) even from a listed origin', async () => {
    const response = await preflight(gateway(LOOPBACK_ONLY), LISTED, 'rebound.example');
    expect(response.status).toBe(403);
    expect(response.headers.has('Access-Control-Allow-Origin')).toBe(false);
    expect((await preflight(gateway(PUBLIC), LISTED, 'gateway.example')).status).toBe(204);
  });

  it('leaves an OPTIONS without Origin to the route (not a preflight): 405, no CORS headers', async () => {
    const response = await preflight(gateway(LOOPBACK_ONLY), undefined);
    expect(response.status).toBe(405);
    expect(corsHeaders(response)).toEqual([]);
  });
});

describe('mcpCors: actual requests', () => {
  it.each([
    ['ok', 200],
    ['streamed', 200],
    ['bad-request', 400],
    ['unauthorized', 401],
    ['crash', 500],
  ] as const)('gives an allowed origin the CORS headers on the %s answer (%i)', async (outcome, status) => {
    const response = await post(gateway(LOOPBACK_ONLY), LISTED, outcome);
    expect(response.status).toBe(status);
    expect(response.headers.get('Access-Control-Allow-Origin')).toBe(LISTED);
    expect(list(response.headers.get('Access-Control-Expose-Headers'))).toEqual(['mcp-session-id', 'www-authenticate']);
    expect(list(response.headers.get('Vary'))).toContain('origin');
    if (outcome === 'ok') expect(response.headers.get('Mcp-Session-Id')).toBe('session-1');
    if (outcome === 'unauthorized') expect(response.headers.get('WWW-Authenticate')).toBe('Bearer');
    if (outcome === 'streamed') expect(await response.text()).toContain('event: message');
  });

  it('gives a loopback origin the headers too, and still refuses others with 403 and no Allow-Origin', async () => {
    const app = gateway(NOTHING_LISTED);
    expect((await post(app, 'http://localhost:5173')).headers.get('Access-Control-Allow-Origin')).toBe(
      'http://localhost:5173',
    );
    const refused = await post(app, LISTED);
    expect(refused.status).toBe(403);
    expect(refused.headers.has('Access-Control-Allow-Origin')).toBe(false);
  });

  it('leaves a request without Origin unchanged', async () => {
    const response = await post(gateway(LOOPBACK_ONLY), undefined);
    expect(response.status).toBe(200);
    expect(corsHeaders(response)).toEqual([]);
    expect(response.headers.has('Vary')).toBe(false);
  });
});
