import { sign } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forgeJwt } from './support/jwt.js';
import { initializeRequest, mcpRaw } from './support/mcp.js';
import { oauthEnv, reserveGatewayUrl } from './support/oauth-gateway.js';
import { generateSigningKey, type SigningKey } from './support/oidc-provider.js';
import { startPair, type Pair } from './support/pair.js';

/**
 * Issue 25, findings 7 and 8: what a trusted issuer that fails or hangs costs
 * the built gateway, counted at the issuer. One loopback server plays three
 * issuers (`/fails`, `/flooded`, `/hangs`), each with its own key, its own
 * behaviour and its own count of key set requests.
 */

type Behaviour = 'ok' | 500 | 429 | 'hang';

interface FakeIssuer {
  path: string;
  behaviour: Behaviour;
  jwksRequests: number;
  key: SigningKey;
}

function fakeIssuer(path: string): FakeIssuer {
  return { path, behaviour: 'ok', jwksRequests: 0, key: generateSigningKey('ES256') };
}

/** The public half as the key set publishes it. */
function publicJwk(key: SigningKey) {
  return { ...key.publicKey.export({ format: 'jwk' }), kid: key.kid, alg: key.alg, use: 'sig' };
}

describe('a trusted issuer that fails or hangs (issue 25, findings 7 and 8)', { timeout: 60_000 }, () => {
  let server: Server;
  let resource: string;
  let pair: Pair;
  const issuers: Record<'fails' | 'flooded' | 'hangs', FakeIssuer> = {} as never;

  beforeAll(async () => {
    for (const name of ['fails', 'flooded', 'hangs'] as const) issuers[name] = fakeIssuer(name);
    server = createServer((request, response) => {
      const issuer = Object.values(issuers).find((candidate) => request.url === `/${candidate.path}/jwks`);
      if (issuer === undefined) return void response.writeHead(404).end();
      issuer.jwksRequests += 1;
      if (issuer.behaviour === 'hang') return;
      if (issuer.behaviour !== 'ok')
        return void response
          .writeHead(issuer.behaviour, { 'content-type': 'application/json' })
          .end('{"error":"unavailable"}');
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ keys: [publicJwk(issuer.key)] }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const issuerOrigin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const reserved = await reserveGatewayUrl();
    ({ resource } = reserved);
    const env = oauthEnv(
      reserved.port,
      resource,
      Object.values(issuers).map((issuer) => ({
        issuer: `${issuerOrigin}/${issuer.path}`,
        jwksUrl: `${issuerOrigin}/${issuer.path}/jwks`,
      })),
    );
    // No cooldown for this one: every verification that needs its keys fetches them, so the count says how often a request verifies.
    env.Gw__OAuth__Issuers__0__JwksCooldownSeconds = '0';
    pair = await startPair({ gateway: { env } });
  });
  afterAll(async () => {
    await pair?.stop();
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });

  /** A token as `issuer` would sign it (or under another kid with another key, as a forger would), for the gateway's resource. */
  function mint(issuer: FakeIssuer, kid = issuer.key.kid, key = issuer.key): string {
    const iss = `http://127.0.0.1:${(server.address() as AddressInfo).port}/${issuer.path}`;
    const iat = Math.floor(Date.now() / 1000);
    return forgeJwt(
      { alg: 'ES256', typ: 'at+jwt', kid },
      { iss, sub: 'alice', aud: resource, scope: 'items:read', iat, exp: iat + 300 },
      (input) => sign('sha256', Buffer.from(input), { key: key.privateKey, dsaEncoding: 'ieee-p1363' }),
    );
  }

  const initialize = (token: string) => mcpRaw(pair.url, initializeRequest('2025-06-18'), { token });

  it('verifies a refused token once per request: with no cooldown, each request to a failing issuer costs one key fetch', async () => {
    const issuer = issuers.fails;
    issuer.behaviour = 500;
    const token = mint(issuer);
    for (let i = 0; i < 5; i++) expect((await initialize(token)).status).toBe(503);
    // Before the fix: 10 (the transport verified, then the service verified again).
    expect(issuer.jwksRequests).toBe(5);
  });

  it('lets 200 forged tokens under unknown kids cost one key fetch while the issuer answers 500, then 429', async () => {
    const issuer = issuers.flooded;
    const forger = generateSigningKey('ES256');
    const forged = Array.from({ length: 200 }, (_, i) => mint(issuer, `made-up-${i}`, forger));
    issuer.behaviour = 500;
    const started = Date.now();
    const statuses = await Promise.all(forged.slice(0, 100).map(async (token) => (await initialize(token)).status));
    issuer.behaviour = 429;
    for (const token of forged.slice(100)) statuses.push((await initialize(token)).status);
    expect(new Set(statuses)).toEqual(new Set([503]));
    // One fetch per cooldown (10 s by default) that began while the flood went on; before the fix, ~100.
    expect(issuer.jwksRequests).toBeLessThanOrEqual(1 + Math.floor((Date.now() - started) / 10_000));
  });

  it('a hanging issuer costs its timeout once: requests within the cooldown after are refused without waiting on it', async () => {
    const issuer = issuers.hangs;
    issuer.behaviour = 'hang';
    const token = mint(issuer);
    const first = Date.now();
    expect((await initialize(token)).status).toBe(503);
    const firstMs = Date.now() - first;
    const started = Date.now();
    for (let i = 0; i < 5; i++) expect((await initialize(token)).status).toBe(503);
    const nextMs = Date.now() - started;
    expect(issuer.jwksRequests).toBe(1 + Math.floor((Date.now() - first) / 10_000));
    console.log(`hanging issuer: first refusal ${firstMs} ms, the next five together ${nextMs} ms`);
    // The one fetch's timeout (5 s), not two of them.
    expect(firstMs).toBeLessThan(2 * 5000);
  });
});
