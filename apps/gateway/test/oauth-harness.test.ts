import { createPublicKey, verify } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt, signIn, TestIssuer } from './support/oidc-provider.js';

/**
 * The test authorization server alone (no gateway): the OAuth tests of issue
 * 17 stand on it, so it must really do discovery, dynamic registration,
 * authorization code with PKCE, consent per resource scope, JWT access tokens
 * for the requested resource, and key rotation.
 */
describe('test authorization server (oidc-provider harness)', { timeout: 30_000 }, () => {
  const resource = 'http://127.0.0.1:8080/mcp';
  const scopes = ['orders:read', 'orders:write', 'customers:read'];
  let rsIssuer: TestIssuer;
  let esIssuer: TestIssuer;

  beforeAll(async () => {
    [rsIssuer, esIssuer] = await Promise.all([
      TestIssuer.start({ scopes }),
      TestIssuer.start({ scopes, accessTokenAlg: 'ES256' }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([rsIssuer?.stop(), esIssuer?.stop()]);
  });

  it('discovery names registration, PKCE S256, the tool scopes and the JWKS with both keys', async () => {
    const metadata = await rsIssuer.discovery();
    expect(metadata).toMatchObject({
      issuer: rsIssuer.issuer,
      registration_endpoint: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\//),
      code_challenge_methods_supported: ['S256'],
      jwks_uri: rsIssuer.jwksUrl,
    });
    expect(metadata.scopes_supported).toEqual(expect.arrayContaining(scopes));
    const jwks = (await (await fetch(rsIssuer.jwksUrl)).json()) as { keys: Array<{ kid: string; d?: string }> };
    expect(jwks.keys.map((key) => key.kid).sort()).toEqual(
      [rsIssuer.currentKeys.rsa.kid, rsIssuer.currentKeys.ec.kid].sort(),
    );
    expect(jwks.keys.every((key) => key.d === undefined)).toBe(true);
  });

  it('registration + code + PKCE + token: a JWT access token for the resource, signed with the published key', async () => {
    const { accessToken, scope } = await rsIssuer.obtainToken({ account: 'alice', resource });
    const { header, payload } = decodeJwt(accessToken);
    expect(header).toMatchObject({ alg: 'RS256', typ: 'at+jwt', kid: rsIssuer.currentKeys.rsa.kid });
    expect(payload).toMatchObject({ iss: rsIssuer.issuer, sub: 'alice', aud: resource, client_id: expect.any(String) });
    expect(payload.scope.split(' ').sort()).toEqual([...scopes].sort());
    expect(scope?.split(' ').sort()).toEqual([...scopes].sort());
    expect(payload.exp - payload.iat).toBe(300);
    expect(verifies(accessToken, rsIssuer.currentKeys.rsa.privateJwk)).toBe(true);
    // What the harness mints with the same key verifies the same way.
    expect(
      verifies(rsIssuer.mint(rsIssuer.claims({ sub: 'alice', aud: resource })), rsIssuer.currentKeys.rsa.privateJwk),
    ).toBe(true);
  });

  it('consent grants only what the user allows: the token carries the granted scopes only', async () => {
    const { accessToken } = await rsIssuer.obtainToken({ account: 'bob', resource, grantScopes: ['customers:read'] });
    expect(decodeJwt(accessToken).payload).toMatchObject({ sub: 'bob', scope: 'customers:read' });
  });

  it('PKCE is required: an authorization request without code_challenge comes back with an error, no code', async () => {
    const metadata = await rsIssuer.discovery();
    const registered = (await (
      await fetch(metadata.registration_endpoint, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:9/cb'], token_endpoint_auth_method: 'none' }),
      })
    ).json()) as { client_id: string };
    const url = new URL(metadata.authorization_endpoint);
    url.search = new URLSearchParams({
      client_id: registered.client_id,
      redirect_uri: 'http://127.0.0.1:9/cb',
      response_type: 'code',
      scope: 'orders:read',
      state: 's',
      resource,
    }).toString();
    const callback = await signIn(url, 'http://127.0.0.1:9/cb', { account: 'alice' });
    expect(callback.searchParams.get('code')).toBeNull();
    expect(callback.searchParams.get('error')).toBe('invalid_request');
    expect(callback.searchParams.get('error_description')).toMatch(/PKCE/);
  });

  it('ES256 issuer: tokens signed with the EC key', async () => {
    const { accessToken } = await esIssuer.obtainToken({ account: 'carol', resource });
    expect(decodeJwt(accessToken).header).toMatchObject({ alg: 'ES256', kid: esIssuer.currentKeys.ec.kid });
    expect(verifies(accessToken, esIssuer.currentKeys.ec.privateJwk)).toBe(true);
  });

  it('key rotation: same issuer and port, new kids in the JWKS, the old gone, new tokens under the new kid; clients kept', async () => {
    const before = { issuer: rsIssuer.issuer, kid: rsIssuer.currentKeys.rsa.kid };
    const { clientId } = await rsIssuer.obtainToken({ account: 'alice', resource });
    await rsIssuer.rotateKeys();
    expect(rsIssuer.issuer).toBe(before.issuer);
    const jwks = (await (await fetch(rsIssuer.jwksUrl)).json()) as { keys: Array<{ kid: string }> };
    const kids = jwks.keys.map((key) => key.kid);
    expect(kids).toContain(rsIssuer.currentKeys.rsa.kid);
    expect(kids).not.toContain(before.kid);
    const { accessToken } = await rsIssuer.obtainToken({ account: 'alice', resource, clientId });
    expect(decodeJwt(accessToken).header.kid).toBe(rsIssuer.currentKeys.rsa.kid);
    expect(decodeJwt(accessToken).payload.client_id).toBe(clientId);
  });

  it('hostile tokens are what they claim to be', () => {
    const claims = rsIssuer.claims({ sub: 'alice', aud: resource });
    expect(decodeJwt(rsIssuer.mintUnsigned(claims)).header.alg).toBe('none');
    expect(rsIssuer.mintUnsigned(claims).endsWith('.')).toBe(true);
    expect(decodeJwt(rsIssuer.mintHmacWithPublicKey(claims)).header).toMatchObject({
      alg: 'HS256',
      kid: rsIssuer.currentKeys.rsa.kid,
    });
    const foreign = rsIssuer.mintWithForeignKey(claims);
    expect(decodeJwt(foreign).header.kid).toBe(rsIssuer.accessTokenKey.kid);
    expect(verifies(foreign, rsIssuer.currentKeys.rsa.privateJwk)).toBe(false);
    expect(rsIssuer.claims({ sub: 'a', aud: resource }, { exp: undefined })).not.toHaveProperty('exp');
  });
});

/** Whether the JWS verifies with the public half of this JWK. */
function verifies(token: string, jwk: Record<string, unknown>): boolean {
  const [header = '', payload = '', signature = ''] = token.split('.');
  const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...publicJwk } = jwk;
  const key = createPublicKey({ key: publicJwk as any, format: 'jwk' });
  const alg = decodeJwt(token).header.alg;
  return verify(
    'sha256',
    Buffer.from(`${header}.${payload}`),
    alg === 'ES256' ? { key, dsaEncoding: 'ieee-p1363' } : key,
    Buffer.from(signature, 'base64url'),
  );
}
