import { Hono } from 'hono';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JSONWebKeySet, type JWTPayload } from 'jose';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { registerController } from '../annotation/controller-registry.js';
import { mountControllers } from '../annotation/mount-controllers.js';
import { withAgentTool } from '../endpoint/with-agent-tool.js';
import type { AgentToolManifest } from '../manifest.js';
import { mapAgentToolSchema } from '../schema-endpoint.js';
import type { RefusalReason } from './assertion-check.js';
import { requireGateway, type RequireGatewayOptions } from './require-gateway.js';

const AUDIENCE = 'http://orders.internal';
const ISSUER = 'tollgate';

interface SigningKey {
  kid: string;
  alg: 'EdDSA' | 'ES256';
  privateKey: CryptoKey;
  jwk: JSONWebKeySet['keys'][number];
}

async function signingKey(kid: string, alg: 'EdDSA' | 'ES256' = 'EdDSA'): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { kid, alg, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

let gatewayKey: SigningKey;
let es256Key: SigningKey;
let strangerKey: SigningKey;

/** An assertion as the gateway makes it, with whatever a test changes. */
async function assertion(
  claims: JWTPayload = {},
  key: SigningKey = gatewayKey,
  header: Record<string, unknown> = {},
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({
    iss: ISSUER,
    aud: AUDIENCE,
    sub: 'agt_7',
    tool: 'get_order',
    scope: 'orders:read orders:write',
    call_id: 'call-1',
    jti: crypto.randomUUID(),
    iat: now,
    exp: now + 60,
    ...claims,
  })
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT', ...header })
    .sign(key.privateKey);
}

/** An app with two marked routes, one unmarked route and the schema; the guard first or last. */
function sampleApp(options: Partial<RequireGatewayOptions> = {}, guardLast = false): Hono {
  const app = new Hono();
  const guard = requireGateway({
    jwks: { keys: [gatewayKey.jwk, es256Key.jwk] },
    audience: AUDIENCE,
    onRefusal: () => undefined,
    ...options,
  });
  if (!guardLast) app.use(guard);
  app.get('/orders/:id', withAgentTool({ name: 'get_order', description: 'One order' }), (c) =>
    c.json({ id: c.req.param('id'), caller: c.get('agent') }),
  );
  app.get('/customers/:id', withAgentTool({ name: 'get_customer', description: 'One customer' }), (c) =>
    c.json({ id: c.req.param('id') }),
  );
  app.get('/health', (c) => c.json({ status: 'ok' }));
  mapAgentToolSchema(app, { includeMappedEndpoints: true });
  if (guardLast) app.use(guard);
  return app;
}

const call = (app: Hono, path: string, token?: string) =>
  app.request(path, token === undefined ? {} : { headers: { 'Tollgate-Assertion': token } });

async function refusal(response: Response) {
  return { status: response.status, body: (await response.json()) as { error: string; message: string } };
}

const INVALID = {
  status: 401,
  body: { error: 'invalid_gateway_assertion', message: 'The gateway assertion is invalid.' },
};

beforeAll(async () => {
  [gatewayKey, es256Key, strangerKey] = await Promise.all([
    signingKey('k1'),
    signingKey('k2', 'ES256'),
    signingKey('k1'),
  ]);
});

describe('requireGateway', () => {
  it("lets a call with a valid assertion through, and the handler reads the caller with c.get('agent')", async () => {
    const response = await call(sampleApp(), '/orders/1001', await assertion());
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      id: '1001',
      caller: { agentId: 'agt_7', scopes: ['orders:read', 'orders:write'], tool: 'get_order', callId: 'call-1' },
    });
  });

  it('accepts ES256 as well as EdDSA, and an empty scope', async () => {
    const response = await call(sampleApp(), '/orders/1', await assertion({ scope: '' }, es256Key));
    expect(response.status).toBe(200);
    expect(((await response.json()) as { caller: { scopes: string[] } }).caller.scopes).toEqual([]);
  });

  it('refuses a direct call to a marked route (no assertion) with 401 JSON saying the gateway is required', async () => {
    const app = sampleApp();
    expect(await refusal(await call(app, '/orders/1001'))).toEqual({
      status: 401,
      body: {
        error: 'gateway_assertion_required',
        message:
          'This endpoint answers only calls that come through the Tollgate gateway (no Tollgate-Assertion header).',
      },
    });
    expect((await call(app, '/customers/c1')).status).toBe(401);
  });

  it('leaves unmarked routes and /gw/schema alone', async () => {
    const app = sampleApp();
    expect((await call(app, '/health')).status).toBe(200);
    const schema = await call(app, '/gw/schema');
    expect(schema.status).toBe(200);
    expect(((await schema.json()) as Array<{ name: string }>).map((tool) => tool.name).sort()).toEqual([
      'get_customer',
      'get_order',
    ]);
  });

  it('guards the marked routes wherever app.use places it, after the routes too', async () => {
    const app = sampleApp({}, true);
    expect((await call(app, '/orders/1001')).status).toBe(401);
    expect((await call(app, '/orders/1001', await assertion())).status).toBe(200);
    expect((await call(app, '/health')).status).toBe(200);
  });

  it('refuses an expired assertion, saying it expired', async () => {
    const past = Math.floor(Date.now() / 1000) - 120;
    expect(await refusal(await call(sampleApp(), '/orders/1', await assertion({ iat: past, exp: past + 60 })))).toEqual(
      {
        status: 401,
        body: { error: 'invalid_gateway_assertion', message: 'The gateway assertion has expired.' },
      },
    );
  });

  it('refuses an assertion used twice (same jti), and accepts a retry of the same call with a new jti', async () => {
    const app = sampleApp();
    const token = await assertion({ jti: 'attempt-1' });
    expect((await call(app, '/orders/1', token)).status).toBe(200);
    expect(await refusal(await call(app, '/orders/1', token))).toEqual(INVALID);
    expect((await call(app, '/orders/1', await assertion({ jti: 'attempt-2', call_id: 'call-1' }))).status).toBe(200);
  });

  it('refuses an assertion replayed to another route: it names another tool', async () => {
    const app = sampleApp();
    expect(await refusal(await call(app, '/customers/c1', await assertion({ tool: 'get_order' })))).toEqual(INVALID);
  });

  it.each([
    ['another audience', { aud: 'http://billing.internal' }],
    ['another issuer', { iss: 'someone-else' }],
    ['a lifetime over a minute', { exp: Math.floor(Date.now() / 1000) + 3600 }],
    ['no call id', { call_id: undefined }],
    ['no agent', { sub: undefined }],
    ['a tool that is not a string', { tool: 7 }],
    // Issue 25, finding 9: a scope string that is not RFC 6749's `scope-token *( SP scope-token )`.
    ['a scope list', { scope: ['orders:read'] }],
    ['a newline between scopes', { scope: 'orders:read\nadmin:all' }],
    ['a tab between scopes', { scope: 'orders:read\tadmin:all' }],
    ['NUL in a scope', { scope: 'orders:read\u0000' }],
    ['two spaces between scopes', { scope: 'orders:read  admin:all' }],
    ['a leading space', { scope: ' orders:read' }],
    ['a quote in a scope', { scope: 'orders:"read"' }],
    ['a non-ASCII scope', { scope: 'commandes:lire\u00e9' }],
  ])('refuses an assertion with %s', async (_what, claims) => {
    expect(await refusal(await call(sampleApp(), '/orders/1', await assertion(claims as JWTPayload)))).toEqual(INVALID);
  });

  it('refuses an assertion signed by another key, even one that claims a published kid', async () => {
    expect(await refusal(await call(sampleApp(), '/orders/1', await assertion({}, strangerKey)))).toEqual(INVALID);
    expect(
      await refusal(await call(sampleApp(), '/orders/1', await assertion({}, { ...strangerKey, kid: 'k9' }))),
    ).toEqual(INVALID);
  });

  it('refuses alg none and HS256, whatever the key set holds', async () => {
    const body = Buffer.from(
      JSON.stringify({
        iss: ISSUER,
        aud: AUDIENCE,
        sub: 'agt_7',
        tool: 'get_order',
        call_id: 'c',
        jti: 'j',
        iat: 1,
        exp: 9e9,
      }),
    ).toString('base64url');
    const none = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${body}.`;
    expect(await refusal(await call(sampleApp(), '/orders/1', none))).toEqual(INVALID);
    const secret = new TextEncoder().encode('a-shared-secret-of-at-least-32-bytes!!');
    const hs256 = await new SignJWT({ tool: 'get_order', call_id: 'c', jti: 'j2' })
      .setProtectedHeader({ alg: 'HS256', kid: 'k1' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setSubject('agt_7')
      .setIssuedAt()
      .setExpirationTime('60s')
      .sign(secret);
    expect(await refusal(await call(sampleApp(), '/orders/1', hs256))).toEqual(INVALID);
    expect(await refusal(await call(sampleApp(), '/orders/1', 'not.a.jwt'))).toEqual(INVALID);
  });

  it('tells onRefusal why, which the caller never learns', async () => {
    const reasons: RefusalReason[] = [];
    const app = sampleApp({ onRefusal: ({ reason }) => reasons.push(reason) });
    await call(app, '/orders/1');
    await call(app, '/orders/1', await assertion({ aud: 'x' }));
    await call(app, '/orders/1', await assertion({ iss: 'x' }));
    await call(app, '/customers/1', await assertion());
    await call(app, '/orders/1', await assertion({}, strangerKey));
    await call(app, '/orders/1', await assertion({}, { ...strangerKey, kid: 'k9' }));
    expect(reasons).toEqual(['missing', 'audience', 'issuer', 'tool', 'signature', 'unknown-key']);
  });

  it('warns once per reason by default', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const app = sampleApp({ onRefusal: undefined });
      await call(app, '/orders/1', await assertion({ aud: 'x' }));
      await call(app, '/orders/1', await assertion({ aud: 'y' }));
      expect(warn).toHaveBeenCalledTimes(1);
      expect(warn.mock.calls[0]![0]).toContain('audience');
    } finally {
      warn.mockRestore();
    }
  });

  it('accepts one of several audiences', async () => {
    const app = sampleApp({ audience: ['http://orders.example', AUDIENCE] });
    expect((await call(app, '/orders/1', await assertion())).status).toBe(200);
  });

  it('refuses to start without an audience or keys', () => {
    expect(() => requireGateway({ jwks: { keys: [] }, audience: '' })).toThrow(/audience is required/);
    expect(() => requireGateway({ jwks: '', audience: AUDIENCE })).toThrow(/jwks is required/);
  });

  it('guards @AgentTool actions mounted by mountControllers, and lets their unmarked actions be', async () => {
    class OrdersController {
      get(c: { get: (key: 'agent') => unknown }) {
        return { caller: c.get('agent') };
      }
      ping() {
        return { pong: true };
      }
    }
    registerController(OrdersController, 'OrdersController');
    const manifest: AgentToolManifest = {
      version: 1,
      strictNullChecks: true,
      tools: [],
      controllers: [
        {
          className: 'OrdersController',
          prefix: '/orders',
          actions: [
            {
              methodName: 'get',
              httpMethod: 'GET',
              path: '/orders/:id',
              toolName: 'get_order',
              parameters: [{ kind: 'context' }],
            },
            { methodName: 'ping', httpMethod: 'GET', path: '/ping', toolName: null, parameters: [] },
          ],
        },
      ],
    };
    const app = new Hono();
    app.use(requireGateway({ jwks: { keys: [gatewayKey.jwk] }, audience: AUDIENCE, onRefusal: () => undefined }));
    mountControllers(app, [new OrdersController()], { manifest });
    expect((await call(app, '/orders/1')).status).toBe(401);
    expect((await call(app, '/orders/1', await assertion({ tool: 'get_customer' }))).status).toBe(401);
    const passed = await call(app, '/orders/1', await assertion());
    expect(passed.status).toBe(200);
    expect(((await passed.json()) as { caller: { agentId: string } }).caller.agentId).toBe('agt_7');
    expect((await call(app, '/ping')).status).toBe(200);
  });
});

describe('requireGateway with the JWKS URL', () => {
  let server: Server;
  let url: string;
  let served: () => { status: number; body: unknown };
  let fetches = 0;

  beforeAll(async () => {
    server = createServer((_request, response) => {
      fetches++;
      const { status, body } = served();
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/jwks.json`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  });

  it('fetches the set once and knows the next key before it signs: no fetch at the switch', async () => {
    const next = await signingKey('k-next');
    served = () => ({ status: 200, body: { keys: [gatewayKey.jwk, next.jwk] } });
    fetches = 0;
    const app = sampleApp({ jwks: url });
    expect((await call(app, '/orders/1', await assertion())).status).toBe(200);
    expect((await call(app, '/orders/1', await assertion({}, next))).status).toBe(200);
    expect(fetches).toBe(1);
  });

  it('fetches again when the cached set is older than jwksCacheSeconds, and keeps the last set when that fetch fails', async () => {
    let now = Date.now();
    const clockSpy = vi.spyOn(Date, 'now').mockImplementation(() => now);
    try {
      const rotated = await signingKey('k-rotated');
      served = () => ({ status: 200, body: { keys: [gatewayKey.jwk] } });
      fetches = 0;
      const app = sampleApp({ jwks: url, jwksCacheSeconds: 1, clock: () => new Date(now) });
      expect(
        (
          await call(
            app,
            '/orders/1',
            await assertion({ iat: Math.floor(now / 1000), exp: Math.floor(now / 1000) + 60 }),
          )
        ).status,
      ).toBe(200);
      // Later, the gateway publishes a new key: the stale set is fetched again.
      now += 2_000;
      served = () => ({ status: 200, body: { keys: [gatewayKey.jwk, rotated.jwk] } });
      const at = { iat: Math.floor(now / 1000), exp: Math.floor(now / 1000) + 60 };
      expect((await call(app, '/orders/1', await assertion(at, rotated))).status).toBe(200);
      expect(fetches).toBe(2);
      // The gateway's set cannot be had: the last one still answers.
      now += 2_000;
      served = () => ({ status: 500, body: { error: 'down' } });
      const later = { iat: Math.floor(now / 1000), exp: Math.floor(now / 1000) + 60 };
      expect((await call(app, '/orders/1', await assertion(later, rotated))).status).toBe(200);
      expect(fetches).toBe(3);
    } finally {
      clockSpy.mockRestore();
    }
  });

  it('fetches at once when an assertion names a key the set lacks (a restarted dev gateway), and not again for every unknown key (issue 29)', async () => {
    const before = await signingKey('k-before-restart');
    const after = await signingKey('k-after-restart');
    served = () => ({ status: 200, body: { keys: [before.jwk] } });
    fetches = 0;
    const reasons: RefusalReason[] = [];
    const app = sampleApp({ jwks: url, onRefusal: ({ reason }) => reasons.push(reason) });
    expect((await call(app, '/orders/1', await assertion({}, before))).status).toBe(200);
    // The gateway restarts with new keys: its very next call passes, well within jose's 30 s cooldown.
    served = () => ({ status: 200, body: { keys: [after.jwk] } });
    expect((await call(app, '/orders/1', await assertion({}, after))).status).toBe(200);
    expect(fetches).toBe(2);
    // Made-up key ids right after: refused without a fetch each (at most one forced fetch per interval).
    const stranger = await signingKey('k-stranger');
    for (let i = 0; i < 5; i++) expect((await call(app, '/orders/1', await assertion({}, stranger))).status).toBe(401);
    expect(fetches).toBe(2);
    expect(reasons).toEqual(['unknown-key', 'unknown-key', 'unknown-key', 'unknown-key', 'unknown-key']);
  });

  it('answers 503 when the keys were never fetched and cannot be', async () => {
    served = () => ({ status: 500, body: { error: 'down' } });
    const reasons: RefusalReason[] = [];
    const app = sampleApp({ jwks: url, onRefusal: ({ reason }) => reasons.push(reason) });
    expect(await refusal(await call(app, '/orders/1', await assertion()))).toEqual({
      status: 503,
      body: {
        error: 'gateway_keys_unavailable',
        message: "The gateway's public keys could not be fetched to check the call; try again shortly.",
      },
    });
    expect(reasons).toEqual(['keys-unavailable']);
  });
});
