import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KNOWN_ORDER } from './support/client-matrix.js';
import { initializeRequest, mcpRaw, openRawSession, rawCall, resultJson } from './support/mcp.js';
import {
  expectInvalidToken,
  oauthEnv,
  parseChallenge,
  reserveGatewayUrl,
  resourceMetadataUrl,
} from './support/oauth-gateway.js';
import { decodeJwt, MemoryOAuthClient, TestIssuer } from './support/oidc-provider.js';
import { startPair, type Pair } from './support/pair.js';

/**
 * Issue 17: the gateway as an OAuth 2.1 resource server, signed into through
 * a real authorization server (oidc-provider in this process) by the official
 * SDK client given nothing but the gateway's URL. The gateway finds the
 * issuer's keys by discovery here (no JwksUrl), and sees the issuer rotate them.
 */

/** Every scope a sample-downstream tool requires: what the metadata must advertise. */
const SAMPLE_SCOPES = ['catalog:write', 'customers:read', 'customers:write', 'orders:read', 'orders:write'];
/** The JSON-RPC code of a refusal (scope, allowlist): what an agent-side scope lack is, unlike the token's. */
const REFUSED = -32003;
/** Least time between two key fetches for an unknown kid, set short so the rotation test need not wait long. */
const JWKS_COOLDOWN_SECONDS = 1;

interface SeenRequest {
  method: string;
  url: string;
  status: number;
  authorization: string | null;
}

describe('OAuth sign-in through a real authorization server (issue 17)', { timeout: 60_000 }, () => {
  let issuer: TestIssuer;
  let pair: Pair;
  let origin: string;
  let resource: string;
  let admin: string;
  const clients: Client[] = [];

  beforeAll(async () => {
    issuer = await TestIssuer.start({ scopes: SAMPLE_SCOPES });
    const reserved = await reserveGatewayUrl();
    ({ origin, resource } = reserved);
    const env = oauthEnv(reserved.port, resource, [{ issuer: issuer.issuer }]);
    env.Gw__OAuth__Issuers__0__JwksCooldownSeconds = String(JWKS_COOLDOWN_SECONDS);
    pair = await startPair({ gateway: { env } });
    admin = await pair.adminToken();
    for (const [account, scopes] of [
      ['alice', ['orders:read', 'customers:read']],
      ['dave', ['orders:read', 'customers:read']],
    ] as const) {
      await pair.api.createAgent(admin, {
        label: account,
        dailyTokenBudget: 100_000,
        scopes,
        externalSubjects: [{ issuer: issuer.issuer, subject: account }],
      });
    }
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    await pair?.stop();
    await issuer?.stop();
  });

  /** A transport whose every request (MCP and OAuth, not the browser's) is written down. */
  function recordedTransport(authProvider: MemoryOAuthClient, seen: SeenRequest[]): StreamableHTTPClientTransport {
    const recording: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      const request = new Request(input, init);
      seen.push({
        method: request.method,
        url: request.url,
        status: response.status,
        authorization: request.headers.get('authorization'),
      });
      return response;
    };
    return new StreamableHTTPClientTransport(new URL(resource), { authProvider, fetch: recording });
  }

  async function connect(transport: StreamableHTTPClientTransport): Promise<Client> {
    const client = new Client({ name: 'oauth-sign-in-test', version: '1.0.0' });
    clients.push(client);
    await client.connect(transport);
    return client;
  }

  /** The first connect: 401, discovery, registration, sign-in; then finishAuth and a new connection. */
  async function signInWithSdk(authProvider: MemoryOAuthClient, seen: SeenRequest[]): Promise<Client> {
    const first = recordedTransport(authProvider, seen);
    await expect(connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    await first.finishAuth(authProvider.authorizationCode!);
    return connect(recordedTransport(authProvider, seen));
  }

  it('serves the protected resource metadata (RFC 9728) at both paths', async () => {
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
      const response = await fetch(`${pair.url}${path}`);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      const metadata = (await response.json()) as Record<string, unknown>;
      expect(metadata).toMatchObject({
        resource,
        authorization_servers: [issuer.issuer],
        bearer_methods_supported: ['header'],
      });
      expect([...(metadata.scopes_supported as string[])].sort()).toEqual(SAMPLE_SCOPES);
    }
  });

  it('answers a call without a token 401 with a challenge naming the metadata, and no error', async () => {
    const refused = await mcpRaw(pair.url, initializeRequest('2025-06-18'));
    expect(refused.status).toBe(401);
    const challenge = parseChallenge(refused.headers.get('www-authenticate'));
    expect(challenge.scheme).toBe('Bearer');
    expect(challenge.params.resource_metadata).toBe(resourceMetadataUrl(origin));
    expect(challenge.params.error).toBeUndefined();
  });

  it('the SDK client given only the URL: 401, discovery, registration, PKCE sign-in, code exchange, then lists and calls tools', async () => {
    const authProvider = new MemoryOAuthClient({ account: 'alice' });
    const seen: SeenRequest[] = [];
    const client = await signInWithSdk(authProvider, seen);

    // It started with no token and was turned away.
    expect(seen[0]).toMatchObject({ method: 'POST', url: resource, status: 401, authorization: null });
    // It read the metadata the challenge named, then the issuer's, registered, and exchanged the code.
    const step = (method: string, url: RegExp) =>
      seen.findIndex((request) => request.method === method && url.test(request.url) && request.status < 300);
    const at = (path: string) => new RegExp(`^${escape(issuer.issuer)}${path}$`);
    const metadataRead = step('GET', new RegExp(`^${escape(resourceMetadataUrl(origin))}$`));
    // RFC 8414 metadata or OpenID discovery: oidc-provider serves both, the SDK tries RFC 8414 first.
    const issuerRead = step('GET', at('/\\.well-known/(oauth-authorization-server|openid-configuration)'));
    const registered = step('POST', at('/reg'));
    const exchanged = step('POST', at('/token'));
    expect(
      [metadataRead, issuerRead, registered, exchanged].every((index) => index > 0),
      JSON.stringify(seen, null, 1),
    ).toBe(true);
    expect(metadataRead < issuerRead && issuerRead < registered && registered < exchanged).toBe(true);

    // The authorization request: PKCE S256 and the gateway as the resource (RFC 8707).
    const authorization = authProvider.authorizationUrls[0]!;
    expect(authorization.origin).toBe(issuer.issuer);
    expect(authorization.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorization.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(authorization.searchParams.get('resource')).toBe(resource);

    // The token is the provider's JWT for the gateway, and the client now sends it.
    const token = authProvider.tokens()!.access_token;
    expect(decodeJwt(token).payload).toMatchObject({ iss: issuer.issuer, sub: 'alice', aud: resource });
    expect(
      seen
        .filter((request) => request.url === resource && request.status === 200)
        .every((request) => request.authorization === `Bearer ${token}`),
    ).toBe(true);

    const result = await client.callTool({ name: 'get_order', arguments: { id: KNOWN_ORDER } });
    expect(result.isError).toBeFalsy();
    expect(resultJson(result)).toMatchObject({ id: KNOWN_ORDER });
    expect((await client.callTool({ name: 'list_orders', arguments: {} })).isError).toBeFalsy();

    // The token holds every tool scope, the agent orders:read but not orders:write: the token never widens the agent.
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['get_order', 'list_orders', 'get_customer']));
    expect(names).not.toContain('place_order');
    const widened = await client
      .callTool({ name: 'place_order', arguments: { customerId: 1, lines: [{ sku: 'KB-100', quantity: 1 }] } })
      .then(
        () => null,
        (error: unknown) => error,
      );
    expect(widened).toBeInstanceOf(McpError);
    expect((widened as McpError).code).toBe(REFUSED);
    expect((widened as McpError).message).toMatch(/orders:write/);
  });

  it('a token without a required scope: 403 insufficient_scope naming it; the SDK steps up and the call then passes', async () => {
    // Dave consents to customers:read only, though his agent also holds orders:read.
    const authProvider = new MemoryOAuthClient({ account: 'dave', grantScopes: ['customers:read'] });
    const seen: SeenRequest[] = [];
    const client = await signInWithSdk(authProvider, seen);
    expect(decodeJwt(authProvider.tokens()!.access_token).payload.scope).toBe('customers:read');

    authProvider.as = { account: 'dave', grantScopes: ['customers:read', 'orders:read'] };
    const mark = seen.length;
    await expect(client.callTool({ name: 'list_orders', arguments: {} })).rejects.toBeInstanceOf(UnauthorizedError);
    const refused = seen.slice(mark).find((request) => request.status === 403);
    expect(refused).toMatchObject({ method: 'POST', url: resource });
    // The SDK asked for what the challenge named: the missing scope and those the token had, so it loses none.
    expect(authProvider.authorizationUrls).toHaveLength(2);
    expect(authProvider.authorizationUrls[1]!.searchParams.get('scope')?.split(' ').sort()).toEqual([
      'customers:read',
      'orders:read',
    ]);

    const transport = recordedTransport(authProvider, seen);
    await transport.finishAuth(authProvider.authorizationCode!);
    const stepped = await connect(transport);
    expect(decodeJwt(authProvider.tokens()!.access_token).payload.scope.split(' ').sort()).toEqual([
      'customers:read',
      'orders:read',
    ]);
    const result = await stepped.callTool({ name: 'list_orders', arguments: {} });
    expect(result.isError).toBeFalsy();
    expect((await stepped.callTool({ name: 'get_customer', arguments: { id: 1 } })).isError).toBeFalsy();
  });

  it('the 403 itself: Bearer error="insufficient_scope", scope and resource_metadata', async () => {
    const { accessToken } = await issuer.obtainToken({ account: 'dave', resource, grantScopes: ['customers:read'] });
    const { sessionId } = await openRawSession(pair.url, accessToken, '2025-06-18');
    const refused = await rawCall(pair.url, accessToken, sessionId, 'tools/call', {
      name: 'list_orders',
      arguments: {},
    });
    expect(refused.status).toBe(403);
    const challenge = parseChallenge(refused.headers.get('www-authenticate'));
    expect(challenge.scheme).toBe('Bearer');
    expect(challenge.params).toMatchObject({
      error: 'insufficient_scope',
      resource_metadata: resourceMetadataUrl(origin),
    });
    // The scope to ask for: the one the tool needs, with those the token already has (a new token replaces the old).
    expect(challenge.params.scope!.split(' ').sort()).toEqual(['customers:read', 'orders:read']);
  });

  it('key rotation at the issuer (new kid): accepted without restarting the gateway; a new token under the dropped key is not', async () => {
    const { pid } = pair.gateway.child;
    // The gateway holds the current keys: a token under them passes.
    const before = await issuer.obtainToken({ account: 'alice', resource });
    expect((await mcpRaw(pair.url, initializeRequest('2025-06-18'), { token: before.accessToken })).status).toBe(200);
    const dropped = issuer.currentKeys.rsa;

    await issuer.rotateKeys();
    // Past the cooldown, the first token naming the new kid makes the gateway fetch the keys again.
    await new Promise((resolve) => setTimeout(resolve, JWKS_COOLDOWN_SECONDS * 1000 + 200));
    const after = await issuer.obtainToken({ account: 'alice', resource });
    expect(decodeJwt(after.accessToken).header.kid).not.toBe(dropped.kid);
    const accepted = await mcpRaw(pair.url, initializeRequest('2025-06-18'), { token: after.accessToken });
    expect(accepted.status).toBe(200);

    const underDroppedKey = issuer.mint(issuer.claims({ sub: 'alice', aud: resource, scope: 'orders:read' }), dropped);
    expectInvalidToken(await mcpRaw(pair.url, initializeRequest('2025-06-18'), { token: underDroppedKey }), origin);
    expect(pair.gateway.child.pid).toBe(pid);
    expect(pair.gateway.child.exitCode).toBeNull();
  });
});

/** A literal string inside a RegExp. */
function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
