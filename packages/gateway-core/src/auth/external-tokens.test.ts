import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  exportJWK,
  exportSPKI,
  generateKeyPair,
  SignJWT,
  UnsecuredJWT,
  type CryptoKey,
  type JWK,
  type JWTPayload,
} from 'jose';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { IssuerUnavailableError, UnauthorizedError } from '../errors.js';
import { ExternalTokens, type ExternalAlgorithm, type TrustedIssuer } from './external-tokens.js';
import { discoverJwksUrl } from './issuer-discovery.js';

const AUDIENCE = 'https://gw.example.com/mcp';

/** A signing key as an issuer holds it: the private half signs, the public half is published with its kid and alg. */
interface SigningKey {
  kid: string;
  alg: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  jwk: JWK;
}

let kids = 0;

async function signingKey(alg: ExternalAlgorithm, kid = `key-${++kids}`): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { kid, alg, privateKey, publicKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

/**
 * A stand-in authorization server on loopback: its JWKS at /jwks, and
 * whatever metadata documents a test puts in `documents` (path → JSON).
 * Counts the JWKS requests, so a test can bound what a token costs.
 */
class TestIssuer {
  keys: SigningKey[] = [];
  documents = new Map<string, unknown>();
  jwksStatus = 200;
  jwksRequests = 0;
  /** Set: every request is taken and never answered (an issuer that hangs). */
  hang = false;
  readonly requests: string[] = [];
  #server: Server | undefined;
  #port = 0;

  async start(port = 0): Promise<this> {
    const server = createServer((request, response) => {
      const path = request.url ?? '/';
      this.requests.push(path);
      if (this.hang) {
        if (path === '/jwks') this.jwksRequests += 1;
        return;
      }
      if (path === '/jwks') {
        this.jwksRequests += 1;
        response.writeHead(this.jwksStatus, { 'content-type': 'application/json' });
        response.end(
          this.jwksStatus === 200 ? JSON.stringify({ keys: this.keys.map((key) => key.jwk) }) : '{"error":"boom"}',
        );
        return;
      }
      const document = this.documents.get(path);
      response.writeHead(document === undefined ? 404 : 200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(document ?? { error: 'not found' }));
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    this.#server = server;
    this.#port = (server.address() as AddressInfo).port;
    return this;
  }

  get origin(): string {
    return `http://127.0.0.1:${this.#port}`;
  }

  get jwksUrl(): string {
    return `${this.origin}/jwks`;
  }

  async stop(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

const running: TestIssuer[] = [];

async function startIssuer(...algs: ExternalAlgorithm[]): Promise<TestIssuer> {
  const issuer = await new TestIssuer().start();
  running.push(issuer);
  for (const alg of algs) issuer.keys.push(await signingKey(alg));
  return issuer;
}

afterEach(async () => {
  await Promise.all(running.splice(0).map((issuer) => issuer.stop()));
});

function trusting(issuer: TestIssuer, overrides: Partial<TrustedIssuer> = {}): ExternalTokens {
  return new ExternalTokens({
    issuers: [{ issuer: issuer.origin, jwksUrl: issuer.jwksUrl, audience: AUDIENCE, ...overrides }],
  });
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

interface Mint {
  key: SigningKey;
  iss: string;
  claims?: JWTPayload;
  /** Header overrides, e.g. another kid. */
  header?: Record<string, unknown>;
}

/** A token as the issuer would sign it: sub, aud, iat and a 5-minute exp unless the claims say otherwise. */
function mint({ key, iss, claims = {}, header = {} }: Mint): Promise<string> {
  const iat = nowSeconds();
  return new SignJWT({ sub: 'alice', aud: AUDIENCE, iat, exp: iat + 300, iss, ...claims })
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'at+jwt', ...header })
    .sign(key.privateKey);
}

async function refusal(attempt: Promise<unknown>): Promise<UnauthorizedError> {
  const error = await attempt.then(
    () => expect.unreachable('the token was accepted'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UnauthorizedError);
  return error as UnauthorizedError;
}

async function unavailable(attempt: Promise<unknown>): Promise<IssuerUnavailableError> {
  const error = await attempt.then(
    () => expect.unreachable('the token was accepted'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(IssuerUnavailableError);
  expect(error).toMatchObject({ code: 'issuer-unavailable', httpStatus: 503 });
  return error as IssuerUnavailableError;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('ExternalTokens: tokens of a trusted issuer', () => {
  it.each(['RS256', 'ES256', 'EdDSA', 'PS256'] as const)(
    'accepts a %s token and says who it speaks for',
    async (alg) => {
      const issuer = await startIssuer(alg);
      const tokens = trusting(issuer);
      const iat = nowSeconds() - 5;
      const token = await mint({
        key: issuer.keys[0]!,
        iss: issuer.origin,
        claims: { iat, exp: iat + 600, jti: 'tok-1', scope: 'orders:read orders:write' },
      });
      expect(tokens.issuerOf(token)?.issuer).toBe(issuer.origin);
      expect(await tokens.verify(token)).toEqual({
        issuer: issuer.origin,
        subject: 'alice',
        scopes: ['orders:read', 'orders:write'],
        tokenId: 'tok-1',
        issuedAt: new Date(iat * 1000),
        expiresAt: new Date((iat + 600) * 1000),
      });
    },
  );

  it('reads the scopes from `scope`, or from `scp` as a string or a list, and none when neither is there', async () => {
    const issuer = await startIssuer('ES256');
    const tokens = trusting(issuer);
    const scopesOf = async (claims: JWTPayload) =>
      (await tokens.verify(await mint({ key: issuer.keys[0]!, iss: issuer.origin, claims }))).scopes;
    expect(await scopesOf({ scope: ' a  b c ' })).toEqual(['a', 'b', 'c']);
    expect(await scopesOf({ scp: 'x y' })).toEqual(['x', 'y']);
    expect(await scopesOf({ scp: ['x', 'y', 42] })).toEqual(['x', 'y']);
    expect(await scopesOf({})).toEqual([]);
  });

  it('gives null for the token id and issue time a token does not carry', async () => {
    const issuer = await startIssuer('ES256');
    const token = await mint({ key: issuer.keys[0]!, iss: issuer.origin, claims: { iat: undefined } });
    expect(await trusting(issuer).verify(token)).toMatchObject({ tokenId: null, issuedAt: null });
  });

  it('names agents by another claim when the issuer says so, and refuses a token without it', async () => {
    const issuer = await startIssuer('ES256');
    const tokens = trusting(issuer, { subjectClaim: 'azp' });
    const key = issuer.keys[0]!;
    expect(
      (await tokens.verify(await mint({ key, iss: issuer.origin, claims: { azp: 'billing-client' } }))).subject,
    ).toBe('billing-client');
    expect((await refusal(tokens.verify(await mint({ key, iss: issuer.origin })))).reason).toBe('claims');
    expect((await refusal(tokens.verify(await mint({ key, iss: issuer.origin, claims: { azp: '' } })))).reason).toBe(
      'claims',
    );
  });

  // Issue 25, findings 6 and 9: what a provisioned agent's identity, label and scopes are made of comes from here.
  it.each<[string, JWTPayload]>([
    ['a 9,000-character subject', { sub: 'x'.repeat(9000) }],
    ['a subject with NUL', { sub: 'alice\u0000' }],
    ['a subject with a right-to-left override', { sub: 'alice\u202Egnp' }],
    [
      'a subject with a newline (two identities once written one per line)',
      { sub: 'mallory\nhttps://idp.example.com victim' },
    ],
    ['a subject with a zero-width space', { sub: 'ali\u200Bce' }],
    ['a subject with a lone surrogate', { sub: 'alice\uD800' }],
    ['a scope list item that is two scopes', { scp: ['orders:read admin:all'] }],
    ['a scope with a newline', { scope: 'orders:read\nadmin:all' }],
    ['a scope with NUL', { scope: 'orders:read\u0000' }],
  ])('refuses a validly signed token with %s as invalid claims (401)', async (_, claims) => {
    const issuer = await startIssuer('ES256');
    const token = await mint({ key: issuer.keys[0]!, iss: issuer.origin, claims });
    expect((await refusal(trusting(issuer).verify(token))).reason).toBe('claims');
  });
});

describe('ExternalTokens: refusals', () => {
  it('refuses a token for another audience', async () => {
    const issuer = await startIssuer('RS256');
    const token = await mint({
      key: issuer.keys[0]!,
      iss: issuer.origin,
      claims: { aud: 'https://other.example.com/mcp' },
    });
    expect((await refusal(trusting(issuer).verify(token))).reason).toBe('claims');
  });

  it('does not know a token of an issuer it does not trust, even one signed with a trusted key', async () => {
    const issuer = await startIssuer('RS256');
    const tokens = trusting(issuer);
    const token = await mint({ key: issuer.keys[0]!, iss: 'https://evil.example.com' });
    expect(tokens.issuerOf(token)).toBeUndefined();
    expect(tokens.issuerOf('not a jwt')).toBeUndefined();
    expect((await refusal(tokens.verify(token))).reason).toBe('claims');
    expect(issuer.jwksRequests).toBe(0);
  });

  it('refuses an expired token as expired, but accepts one expired within the clock tolerance', async () => {
    const issuer = await startIssuer('ES256');
    const tokens = trusting(issuer, { clockToleranceSeconds: 30 });
    const key = issuer.keys[0]!;
    const expired = await mint({
      key,
      iss: issuer.origin,
      claims: { iat: nowSeconds() - 600, exp: nowSeconds() - 60 },
    });
    expect((await refusal(tokens.verify(expired))).reason).toBe('expired');
    const justExpired = await mint({
      key,
      iss: issuer.origin,
      claims: { iat: nowSeconds() - 600, exp: nowSeconds() - 10 },
    });
    expect((await tokens.verify(justExpired)).subject).toBe('alice');
  });

  it('refuses a token without exp', async () => {
    const issuer = await startIssuer('ES256');
    const token = await mint({ key: issuer.keys[0]!, iss: issuer.origin, claims: { exp: undefined } });
    expect((await refusal(trusting(issuer).verify(token))).reason).toBe('claims');
  });

  it('refuses a token not valid before a time beyond the clock tolerance, and accepts one within it', async () => {
    const issuer = await startIssuer('ES256');
    const tokens = trusting(issuer, { clockToleranceSeconds: 30 });
    const key = issuer.keys[0]!;
    const later = await mint({ key, iss: issuer.origin, claims: { nbf: nowSeconds() + 120 } });
    expect((await refusal(tokens.verify(later))).reason).toBe('claims');
    const soon = await mint({ key, iss: issuer.origin, claims: { nbf: nowSeconds() + 10 } });
    expect((await tokens.verify(soon)).subject).toBe('alice');
    // No tolerance: the same 10 s are refused.
    expect((await refusal(trusting(issuer, { clockToleranceSeconds: 0 }).verify(soon))).reason).toBe('claims');
  });

  it('judges time by the clock it is given', async () => {
    const issuer = await startIssuer('ES256');
    const token = await mint({ key: issuer.keys[0]!, iss: issuer.origin });
    const inAnHour = new ExternalTokens({
      issuers: [{ issuer: issuer.origin, jwksUrl: issuer.jwksUrl, audience: AUDIENCE }],
      clock: () => new Date(Date.now() + 3_600_000),
    });
    expect((await refusal(inAnHour.verify(token))).reason).toBe('expired');
  });

  it('refuses an algorithm the issuer is not allowed, even signed by its own key', async () => {
    const issuer = await startIssuer('RS256', 'ES256');
    const tokens = trusting(issuer, { algorithms: ['ES256'] });
    const [rsa, ec] = issuer.keys as [SigningKey, SigningKey];
    expect((await refusal(tokens.verify(await mint({ key: rsa, iss: issuer.origin })))).reason).toBe('algorithm');
    expect((await tokens.verify(await mint({ key: ec, iss: issuer.origin }))).subject).toBe('alice');
  });

  it('refuses HS256 signed with the issuer public key as the HMAC secret (key confusion)', async () => {
    const issuer = await startIssuer('RS256');
    const tokens = trusting(issuer);
    const key = issuer.keys[0]!;
    const claims = { sub: 'mallory', aud: AUDIENCE, iss: issuer.origin, iat: nowSeconds(), exp: nowSeconds() + 300 };
    const secrets = [
      new TextEncoder().encode(await exportSPKI(key.publicKey)),
      new TextEncoder().encode(JSON.stringify(key.jwk)),
    ];
    for (const secret of secrets) {
      const forged = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid: key.kid }).sign(secret);
      expect(tokens.issuerOf(forged)?.issuer).toBe(issuer.origin);
      expect((await refusal(tokens.verify(forged))).reason).toBe('algorithm');
    }
  });

  it('refuses an unsecured token (alg none)', async () => {
    const issuer = await startIssuer('RS256');
    const tokens = trusting(issuer);
    const unsigned = new UnsecuredJWT({ sub: 'mallory', scope: 'admin' })
      .setIssuer(issuer.origin)
      .setAudience(AUDIENCE)
      .setIssuedAt()
      .setExpirationTime('5m')
      .encode();
    expect(tokens.issuerOf(unsigned)?.issuer).toBe(issuer.origin);
    const error = await refusal(tokens.verify(unsigned));
    expect(error.reason).toBe('algorithm');
    // The same with a kid of the issuer's and a made-up signature.
    const [, body] = unsigned.split('.');
    const header = Buffer.from(JSON.stringify({ alg: 'none', kid: issuer.keys[0]!.kid })).toString('base64url');
    expect((await refusal(tokens.verify(`${header}.${body}.c2lnbmF0dXJl`))).reason).toBe('algorithm');
  });

  it('refuses a malformed token naming a trusted issuer as invalid (401), never as the issuer being unavailable', async () => {
    const issuer = await startIssuer('ES256');
    const tokens = trusting(issuer);
    const [header, body] = (await mint({ key: issuer.keys[0]!, iss: issuer.origin })).split('.') as [string, string];
    const crit = Buffer.from(JSON.stringify({ alg: 'ES256', kid: issuer.keys[0]!.kid, crit: ['x'], x: 1 })).toString(
      'base64url',
    );
    expect((await refusal(tokens.verify(`${header}.${body}.%%%`))).reason).toBe('malformed');
    expect((await refusal(tokens.verify(`${header}.${body}.c2ln`))).reason).toBe('signature');
    expect((await refusal(tokens.verify(`${crit}.${body}.c2ln`))).reason).toBe('algorithm');
  });

  it('refuses a token signed with a key the issuer never published, under a published kid', async () => {
    const issuer = await startIssuer('ES256');
    const impostor = await signingKey('ES256', issuer.keys[0]!.kid);
    const token = await mint({ key: impostor, iss: issuer.origin });
    expect((await refusal(trusting(issuer).verify(token))).reason).toBe('signature');
  });
});

describe('ExternalTokens: the issuer keys', () => {
  it('accepts a token under a new kid after the issuer rotated its keys, with one refetch', async () => {
    const issuer = await startIssuer('RS256');
    const tokens = trusting(issuer, { jwksCooldownSeconds: 0.2 });
    expect((await tokens.verify(await mint({ key: issuer.keys[0]!, iss: issuer.origin }))).subject).toBe('alice');
    expect(issuer.jwksRequests).toBe(1);
    await sleep(250);
    issuer.keys = [await signingKey('RS256')];
    const rotated = await mint({ key: issuer.keys[0]!, iss: issuer.origin, claims: { sub: 'bob' } });
    expect((await tokens.verify(rotated)).subject).toBe('bob');
    expect(issuer.jwksRequests).toBe(2);
  });

  it('lets a flood of made-up kids cost at most one key fetch per cooldown', async () => {
    const issuer = await startIssuer('ES256');
    const cooldownMs = 600;
    const tokens = trusting(issuer, { jwksCooldownSeconds: cooldownMs / 1000 });
    // Keys the issuer never published, each under a kid it never used (made first: the cooldown starts with the first fetch).
    const forgers = await Promise.all(Array.from({ length: 5 }, () => signingKey('ES256')));
    const forged = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        mint({ key: forgers[i % forgers.length]!, iss: issuer.origin, header: { kid: `made-up-${i}` } }),
      ),
    );
    await tokens.verify(await mint({ key: issuer.keys[0]!, iss: issuer.origin }));
    expect(issuer.jwksRequests).toBe(1);

    // Within the cooldown of the first fetch: no fetch at all.
    const early = await Promise.all(forged.slice(0, 20).map((token) => refusal(tokens.verify(token))));
    expect(early.map((error) => error.reason)).toEqual(Array(20).fill('signature'));
    expect(issuer.jwksRequests).toBe(1);

    // After it: twenty at once, then twenty one after another, share one refetch.
    await sleep(cooldownMs + 50);
    await Promise.all(forged.slice(20, 40).map((token) => refusal(tokens.verify(token))));
    for (const token of forged.slice(40, 60)) await refusal(tokens.verify(token));
    expect(issuer.jwksRequests).toBe(2);

    await sleep(cooldownMs + 50);
    await refusal(tokens.verify(forged[0]!));
    expect(issuer.jwksRequests).toBe(3);
  });

  it('answers issuer-unavailable (503) while the key set cannot be read, and recovers when it can, after the cooldown', async () => {
    const issuer = await startIssuer('ES256');
    const tokens = trusting(issuer, { jwksCooldownSeconds: 0.2 });
    const token = await mint({ key: issuer.keys[0]!, iss: issuer.origin });
    issuer.jwksStatus = 500;
    await unavailable(tokens.verify(token));
    await unavailable(tokens.verify(token));
    issuer.jwksStatus = 200;
    await sleep(250);
    expect((await tokens.verify(token)).subject).toBe('alice');
  });

  it('answers issuer-unavailable while the issuer is down, and recovers when it is back on the same port', async () => {
    const issuer = await startIssuer('ES256');
    const port = Number(new URL(issuer.origin).port);
    const tokens = trusting(issuer, { jwksCooldownSeconds: 0.2 });
    const token = await mint({ key: issuer.keys[0]!, iss: issuer.origin });
    await issuer.stop();
    await unavailable(tokens.verify(token));
    await issuer.start(port);
    await sleep(250);
    expect((await tokens.verify(token)).subject).toBe('alice');
  });

  it('answers issuer-unavailable when the key set is not one', async () => {
    const issuer = await startIssuer('ES256');
    issuer.documents.set('/not-keys', { keys: 'none' });
    const tokens = trusting(issuer, { jwksUrl: `${issuer.origin}/not-keys` });
    await unavailable(tokens.verify(await mint({ key: issuer.keys[0]!, iss: issuer.origin })));
  });

  it('remembers a verified token: verifying it again needs neither the issuer nor its key', async () => {
    const issuer = await startIssuer('ES256');
    const tokens = trusting(issuer, { jwksCooldownSeconds: 0.1 });
    const first = await mint({ key: issuer.keys[0]!, iss: issuer.origin });
    const identity = await tokens.verify(first);
    expect(issuer.jwksRequests).toBe(1);

    // The issuer drops the key, and the gateway learns it through a token under a new kid.
    await sleep(150);
    issuer.keys = [await signingKey('ES256')];
    await tokens.verify(await mint({ key: issuer.keys[0]!, iss: issuer.origin, claims: { sub: 'bob' } }));
    expect(issuer.jwksRequests).toBe(2);
    await issuer.stop();

    // Not verified again (its key is gone from the set): answered from memory.
    expect(await tokens.verify(first)).toEqual(identity);
    expect(issuer.jwksRequests).toBe(2);
  });

  it('still refuses a remembered token once it expires', async () => {
    const issuer = await startIssuer('ES256');
    let now = Date.now();
    const tokens = new ExternalTokens({
      issuers: [{ issuer: issuer.origin, jwksUrl: issuer.jwksUrl, audience: AUDIENCE, clockToleranceSeconds: 0 }],
      clock: () => new Date(now),
    });
    const token = await mint({ key: issuer.keys[0]!, iss: issuer.origin, claims: { exp: nowSeconds() + 60 } });
    await tokens.verify(token);
    now += 61_000;
    expect((await refusal(tokens.verify(token))).reason).toBe('expired');
  });
});

// Issue 25, findings 7 and 8: what an issuer that fails, or hangs, costs the gateway, and what it still accepts.
describe('ExternalTokens: an issuer that fails or hangs', () => {
  /** Tokens under kids the issuer never published, signed by keys it never had. */
  async function forgedTokens(issuer: TestIssuer, count: number): Promise<string[]> {
    const forgers = await Promise.all(Array.from({ length: 4 }, () => signingKey('ES256')));
    return Promise.all(
      Array.from({ length: count }, (_, i) =>
        mint({ key: forgers[i % forgers.length]!, iss: issuer.origin, header: { kid: `made-up-${i}` } }),
      ),
    );
  }

  it.each([500, 429])(
    'lets 200 forged tokens cost one key fetch per cooldown while the issuer answers %i, before any good fetch',
    async (status) => {
      const issuer = await startIssuer('ES256');
      issuer.jwksStatus = status;
      const tokens = trusting(issuer);
      const forged = await forgedTokens(issuer, 200);
      await Promise.all(forged.slice(0, 100).map((token) => unavailable(tokens.verify(token))));
      for (const token of forged.slice(100)) await unavailable(tokens.verify(token));
      // The default cooldown (10 s) is far longer than this test: one fetch, however many tokens.
      expect(issuer.jwksRequests).toBe(1);
    },
  );

  it('lets 200 forged tokens cost one key fetch per cooldown when the issuer starts failing after a good fetch; its real tokens still pass', async () => {
    const issuer = await startIssuer('ES256');
    const cooldownMs = 300;
    const tokens = trusting(issuer, { jwksCooldownSeconds: cooldownMs / 1000 });
    const good = await mint({ key: issuer.keys[0]!, iss: issuer.origin });
    const forged = await forgedTokens(issuer, 200);
    expect((await tokens.verify(good)).subject).toBe('alice');
    await sleep(cooldownMs + 50);
    issuer.jwksStatus = 429;
    const started = Date.now();
    await Promise.all(forged.slice(0, 100).map((token) => tokens.verify(token).catch((error: unknown) => error)));
    for (const token of forged.slice(100)) await tokens.verify(token).catch((error: unknown) => error);
    const cooldownsPassed = Math.floor((Date.now() - started) / cooldownMs);
    // The good fetch, then at most one per cooldown that passed while the flood went on.
    expect(issuer.jwksRequests).toBeLessThanOrEqual(2 + cooldownsPassed);
    const fresh = await mint({ key: issuer.keys[0]!, iss: issuer.origin, claims: { sub: 'bob' } });
    expect((await tokens.verify(fresh)).subject).toBe('bob');
  });

  it('while the issuer is known to be down, answers at once: no request waits for it again within the cooldown', async () => {
    const issuer = await startIssuer('ES256');
    issuer.hang = true;
    const tokens = new ExternalTokens({
      issuers: [{ issuer: issuer.origin, jwksUrl: issuer.jwksUrl, audience: AUDIENCE }],
      keyFetchTimeoutMs: 200,
    });
    const token = await mint({ key: issuer.keys[0]!, iss: issuer.origin });
    // Requests that arrive while the one fetch hangs wait for that fetch, not for one each.
    await Promise.all(Array.from({ length: 5 }, () => unavailable(tokens.verify(token))));
    expect(issuer.jwksRequests).toBe(1);
    // Known down now: refused without asking (a fetch would hang until the timeout).
    for (let i = 0; i < 20; i++) await unavailable(tokens.verify(token));
    expect(issuer.jwksRequests).toBe(1);
  });

  it('keeps using the last good keys while the issuer cannot be reached, past their refresh age, up to JwksMaxStaleSeconds', async () => {
    const issuer = await startIssuer('ES256');
    let now = Date.now();
    const FETCH_TIMEOUT_MS = 3000;
    const tokens = new ExternalTokens({
      issuers: [{ issuer: issuer.origin, jwksUrl: issuer.jwksUrl, audience: AUDIENCE, jwksMaxStaleSeconds: 3600 }],
      clock: () => new Date(now),
      keyFetchTimeoutMs: FETCH_TIMEOUT_MS,
    });
    const tokenAt = (sub: string) =>
      mint({
        key: issuer.keys[0]!,
        iss: issuer.origin,
        claims: { sub, iat: Math.floor(now / 1000), exp: Math.floor(now / 1000) + 300 },
      });
    expect((await tokens.verify(await tokenAt('a'))).subject).toBe('a');
    expect(issuer.jwksRequests).toBe(1);

    issuer.hang = true;
    // 11 minutes on: the keys are due a refresh, which hangs; a fresh token signed by a key the gateway holds
    // still passes, sooner than the refresh could time out: it did not wait for it.
    now += 11 * 60_000;
    const started = performance.now();
    expect((await tokens.verify(await tokenAt('b'))).subject).toBe('b');
    expect(performance.now() - started).toBeLessThan(FETCH_TIMEOUT_MS);
    await vi.waitFor(() => expect(issuer.jwksRequests).toBe(2));
    now += 30 * 60_000;
    expect((await tokens.verify(await tokenAt('c'))).subject).toBe('c');

    // Past the bound without one good fetch: the keys are no longer trusted.
    now += 60 * 60_000;
    await unavailable(tokens.verify(await tokenAt('d')));
  });

  it('drops a key the issuer withdrew at the refresh after the keys are 10 minutes old', async () => {
    const issuer = await startIssuer('ES256');
    let now = Date.now();
    const tokens = new ExternalTokens({
      issuers: [{ issuer: issuer.origin, jwksUrl: issuer.jwksUrl, audience: AUDIENCE }],
      clock: () => new Date(now),
    });
    const withdrawn = issuer.keys[0]!;
    const tokenAt = (sub: string, key = withdrawn) =>
      mint({
        key,
        iss: issuer.origin,
        claims: { sub, iat: Math.floor(now / 1000), exp: Math.floor(now / 1000) + 300 },
      });
    expect((await tokens.verify(await tokenAt('a'))).subject).toBe('a');
    issuer.keys = [await signingKey('ES256')];
    now += 11 * 60_000;
    // This one refreshes the keys in the background; once that lands, the withdrawn key is gone.
    await tokens.verify(await tokenAt('b')).catch(() => undefined);
    await sleep(100);
    expect((await refusal(tokens.verify(await tokenAt('c')))).reason).toBe('signature');
    expect((await tokens.verify(await tokenAt('d', issuer.keys[0]!))).subject).toBe('d');
  });
});

describe('ExternalTokens: keys found through the issuer metadata', () => {
  it('finds the key set through OpenID discovery', async () => {
    const issuer = await startIssuer('ES256');
    issuer.documents.set('/.well-known/openid-configuration', { issuer: issuer.origin, jwks_uri: issuer.jwksUrl });
    const tokens = new ExternalTokens({ issuers: [{ issuer: issuer.origin, audience: AUDIENCE }] });
    expect((await tokens.verify(await mint({ key: issuer.keys[0]!, iss: issuer.origin }))).subject).toBe('alice');
    expect(issuer.requests).toEqual(['/.well-known/openid-configuration', '/jwks']);
  });

  it('finds it through RFC 8414 metadata, inserted before the path of an issuer with one', async () => {
    const issuer = await startIssuer('EdDSA');
    const name = `${issuer.origin}/tenants/acme`;
    issuer.documents.set('/.well-known/oauth-authorization-server/tenants/acme', {
      issuer: name,
      jwks_uri: issuer.jwksUrl,
    });
    expect(await discoverJwksUrl(name)).toBe(issuer.jwksUrl);
    expect(issuer.requests).toEqual([
      '/tenants/acme/.well-known/openid-configuration',
      '/.well-known/oauth-authorization-server/tenants/acme',
    ]);
    const tokens = new ExternalTokens({ issuers: [{ issuer: name, audience: AUDIENCE }] });
    expect((await tokens.verify(await mint({ key: issuer.keys[0]!, iss: name }))).issuer).toBe(name);
  });

  it('finds the metadata of an issuer written with a trailing slash (as Auth0 names itself)', async () => {
    const issuer = await startIssuer('RS256');
    const name = `${issuer.origin}/`;
    issuer.documents.set('/.well-known/openid-configuration', { issuer: name, jwks_uri: issuer.jwksUrl });
    const tokens = new ExternalTokens({ issuers: [{ issuer: name, audience: AUDIENCE }] });
    expect((await tokens.verify(await mint({ key: issuer.keys[0]!, iss: name }))).issuer).toBe(name);
    // The same tokens without the slash name another issuer.
    expect(tokens.issuerOf(await mint({ key: issuer.keys[0]!, iss: issuer.origin }))).toBeUndefined();
  });

  it('prefers OpenID discovery under the issuer path', async () => {
    const issuer = await startIssuer('ES256');
    const name = `${issuer.origin}/realms/main`;
    issuer.documents.set('/realms/main/.well-known/openid-configuration', {
      issuer: name,
      jwks_uri: `${issuer.origin}/oidc-keys`,
    });
    issuer.documents.set('/.well-known/oauth-authorization-server/realms/main', {
      issuer: name,
      jwks_uri: `${issuer.origin}/other-keys`,
    });
    expect(await discoverJwksUrl(name)).toBe(`${issuer.origin}/oidc-keys`);
  });

  it('does not use metadata that names another issuer or no key set', async () => {
    const issuer = await startIssuer('ES256');
    issuer.documents.set('/.well-known/openid-configuration', {
      issuer: 'https://evil.example.com',
      jwks_uri: issuer.jwksUrl,
    });
    issuer.documents.set('/.well-known/oauth-authorization-server', { issuer: issuer.origin });
    await expect(discoverJwksUrl(issuer.origin)).rejects.toThrow(
      /names issuer "https:\/\/evil.example.com".*has no jwks_uri/,
    );
  });

  it('answers issuer-unavailable when discovery names another issuer, and recovers once the metadata is right', async () => {
    const issuer = await startIssuer('ES256');
    issuer.documents.set('/.well-known/openid-configuration', {
      issuer: `${issuer.origin}/other`,
      jwks_uri: issuer.jwksUrl,
    });
    const tokens = new ExternalTokens({
      issuers: [{ issuer: issuer.origin, audience: AUDIENCE, jwksCooldownSeconds: 0.2 }],
    });
    const token = await mint({ key: issuer.keys[0]!, iss: issuer.origin });
    await unavailable(tokens.verify(token));
    expect(issuer.jwksRequests).toBe(0);
    issuer.documents.set('/.well-known/openid-configuration', { issuer: issuer.origin, jwks_uri: issuer.jwksUrl });
    await sleep(250);
    expect((await tokens.verify(token)).subject).toBe('alice');
  });
});
