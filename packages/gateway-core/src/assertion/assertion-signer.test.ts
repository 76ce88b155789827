import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors.js';
import { ASSERTION_HEADER, GatewayAssertionSigner, type AssertionSubject } from './assertion-signer.js';
import { derivePeriodKey } from './derive-key.js';
import { RETENTION_MARGIN_MS } from './key-schedule.js';

const SECRET = 'test-signing-key-that-is-at-least-32-bytes-long';
const HOUR = 3_600_000;
/** 10:00 UTC: the start of a one-hour period. */
const START = Date.UTC(2026, 10, 24, 10, 0, 0);
const SUBJECT: AssertionSubject = {
  audience: 'http://orders.internal',
  agentId: 'agt_1',
  tool: 'get_order',
  scopes: ['orders:read', 'orders:write'],
  callId: 'call-1',
};

function signerAt(at: { ms: number }, options: Partial<ConstructorParameters<typeof GatewayAssertionSigner>[0]> = {}) {
  return new GatewayAssertionSigner({ signingKey: SECRET, clock: () => new Date(at.ms), ...options });
}

async function verify(
  token: string,
  signer: GatewayAssertionSigner,
  at: number,
  audience = SUBJECT.audience,
): Promise<JWTPayload> {
  const { payload } = await jwtVerify(token, createLocalJWKSet(signer.jwks()), {
    algorithms: ['EdDSA', 'ES256'],
    issuer: 'tollgate',
    audience,
    currentDate: new Date(at),
  });
  return payload;
}

const kids = (signer: GatewayAssertionSigner) => signer.jwks().keys.map((key) => key.kid);

describe('GatewayAssertionSigner', () => {
  it('signs the claims of one attempt, valid for the configured lifetime', async () => {
    const at = { ms: START + 1234 };
    const signer = signerAt(at, { lifetimeSeconds: 30 });
    const token = signer.sign(SUBJECT);
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'ES256', kid: expect.any(String), typ: 'JWT' });
    const payload = await verify(token, signer, at.ms);
    expect(payload).toEqual({
      iss: 'tollgate',
      aud: 'http://orders.internal',
      sub: 'agt_1',
      tool: 'get_order',
      scope: 'orders:read orders:write',
      call_id: 'call-1',
      jti: expect.stringMatching(/^[0-9a-f-]{36}$/),
      iat: Math.floor(at.ms / 1000),
      exp: Math.floor(at.ms / 1000) + 30,
    });
    expect(ASSERTION_HEADER).toBe('Tollgate-Assertion');
  });

  it('gives every attempt its own jti, and keeps the call id', async () => {
    const at = { ms: START };
    const signer = signerAt(at);
    const first = await verify(signer.sign(SUBJECT), signer, at.ms);
    const retry = await verify(signer.sign(SUBJECT), signer, at.ms);
    expect(first.jti).not.toBe(retry.jti);
    expect(first.call_id).toBe(retry.call_id);
  });

  it('lives 60 seconds by default and never longer', async () => {
    const at = { ms: START };
    const payload = await verify(signerAt(at).sign(SUBJECT), signerAt(at), at.ms);
    expect(payload.exp! - payload.iat!).toBe(60);
    expect(() => signerAt(at, { lifetimeSeconds: 61 })).toThrow(ConfigError);
  });

  it('is refused by a verifier expecting another audience, or once expired', async () => {
    const at = { ms: START };
    const signer = signerAt(at);
    const token = signer.sign(SUBJECT);
    await expect(verify(token, signer, at.ms, 'http://billing.internal')).rejects.toThrow(/aud/);
    await expect(verify(token, signer, at.ms + 61_000)).rejects.toThrow(/exp/);
  });

  it('signs EdDSA (Ed25519) when asked', async () => {
    const at = { ms: START };
    const signer = signerAt(at, { algorithm: 'EdDSA' });
    const token = signer.sign(SUBJECT);
    expect(decodeProtectedHeader(token).alg).toBe('EdDSA');
    expect(signer.jwks().keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig' });
    expect((await verify(token, signer, at.ms)).sub).toBe('agt_1');
  });

  it('writes every ES256 signature in the JWS form (r ‖ s) jose accepts, whatever the lengths of r and s', async () => {
    const at = { ms: START };
    const signer = signerAt(at);
    const jwks = createLocalJWKSet(signer.jwks());
    // DER drops an integer's leading zero bytes and adds one ahead of a high bit: keep signing until both were met.
    const seen = { highBit: 0, short: 0 };
    for (let i = 0; i < 20_000 && (seen.highBit === 0 || seen.short === 0 || i < 300); i++) {
      const token = signer.sign(SUBJECT);
      const raw = Buffer.from(token.split('.')[2]!, 'base64url');
      expect(raw).toHaveLength(64);
      for (const integer of [raw.subarray(0, 32), raw.subarray(32)]) {
        if (integer[0]! & 0x80) seen.highBit++;
        if (integer[0] === 0) seen.short++;
      }
      const { payload } = await jwtVerify(token, jwks, {
        algorithms: ['ES256'],
        issuer: 'tollgate',
        audience: SUBJECT.audience,
        currentDate: new Date(at.ms),
      });
      expect(payload.sub).toBe('agt_1');
    }
    expect(seen.highBit).toBeGreaterThan(0);
    expect(seen.short).toBeGreaterThan(0);
  });

  it('signs ES256 by default, in the JWS form (r ‖ s) jose accepts', async () => {
    const at = { ms: START };
    const signer = signerAt(at);
    expect(signer.algorithm).toBe('ES256');
    const token = signer.sign(SUBJECT);
    expect(decodeProtectedHeader(token).alg).toBe('ES256');
    expect(signer.jwks().keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
    expect((await verify(token, signer, at.ms)).sub).toBe('agt_1');
  });

  it('derives the same keys on every instance from the shared secret, with no coordination', async () => {
    const at = { ms: START + 17 * 60_000 };
    for (const algorithm of ['EdDSA', 'ES256'] as const) {
      const one = signerAt(at, { algorithm });
      const other = signerAt(at, { algorithm });
      expect(other.jwks()).toEqual(one.jwks());
      // Signed by one instance, checked with the keys another publishes.
      expect((await verify(one.sign(SUBJECT), other, at.ms)).tool).toBe('get_order');
    }
  });

  it('derives unrelated keys for another secret, another algorithm, another period', async () => {
    const at = { ms: START };
    const mine = signerAt(at);
    const theirs = signerAt(at, { signingKey: 'another-secret-that-is-also-32-bytes-or-more' });
    expect(kids(theirs)).not.toEqual(expect.arrayContaining([kids(mine)[0]]));
    await expect(verify(theirs.sign(SUBJECT), mine, at.ms)).rejects.toThrow();
    const secret = new TextEncoder().encode(SECRET);
    expect(derivePeriodKey(secret, 'EdDSA', 7).kid).toBe(derivePeriodKey(secret, 'EdDSA', 7).kid);
    expect(derivePeriodKey(secret, 'EdDSA', 7).kid).not.toBe(derivePeriodKey(secret, 'EdDSA', 8).kid);
    expect(derivePeriodKey(secret, 'ES256', 7).kid).not.toBe(derivePeriodKey(secret, 'EdDSA', 7).kid);
  });

  it('derives a valid P-256 key for any period (the scalar is reduced into range)', () => {
    const secret = new TextEncoder().encode(SECRET);
    for (let period = 0; period < 200; period++) {
      const key = derivePeriodKey(secret, 'ES256', period);
      expect(key.privateKey.asymmetricKeyType).toBe('ec');
      expect(key.publicJwk.y).toBeDefined();
    }
  });

  it('publishes the previous key while its assertions live, the current one and the next one', async () => {
    const at = { ms: START + 30 * 60_000 };
    const signer = signerAt(at);
    const [current, next] = kids(signer);
    // Mid-period: the previous key's last assertion expired long ago.
    expect(kids(signer)).toHaveLength(2);
    const earlyCache = createLocalJWKSet(signer.jwks());

    // The period turns: the key that was "next" signs, and a verifier that cached the set before knows it.
    at.ms = START + HOUR + 10;
    const afterTurn = signer.sign(SUBJECT);
    expect(decodeProtectedHeader(afterTurn).kid).toBe(next);
    await expect(jwtVerify(afterTurn, earlyCache, { currentDate: new Date(at.ms) })).resolves.toBeDefined();

    // An assertion signed in the last second of the old period is still checkable until it expires.
    at.ms = START + HOUR - 1;
    const lastOfOld = signer.sign(SUBJECT);
    at.ms = START + HOUR + 58_000;
    expect(kids(signer)).toEqual([current, next, expect.any(String)]);
    await expect(verify(lastOfOld, signer, at.ms)).resolves.toBeDefined();

    // Once its last assertion has expired (plus the margin for clocks), the old key goes.
    at.ms = START + HOUR + 60_000 + RETENTION_MARGIN_MS;
    expect(kids(signer)).toEqual([next, expect.any(String)]);
    expect(kids(signer)).not.toContain(current);
  });

  it('rotates on short periods too, publishing every key an unexpired assertion may name', async () => {
    const at = { ms: START };
    const signer = signerAt(at, { rotationMinutes: 0.05, lifetimeSeconds: 2 });
    const seen = new Set<string>();
    const tokens: Array<{ token: string; at: number }> = [];
    for (let step = 0; step < 6; step++, at.ms += 3_000) {
      const token = signer.sign(SUBJECT);
      seen.add(decodeProtectedHeader(token).kid!);
      tokens.push({ token, at: at.ms });
    }
    expect(seen.size).toBe(6);
    // Each one, checked a second after it was signed against the set published then.
    for (const { token, at: signedAt } of tokens) {
      at.ms = signedAt + 1_000;
      await expect(verify(token, signer, at.ms)).resolves.toBeDefined();
    }
    expect(signer.jwksMaxAgeSeconds).toBe(1);
  });

  it('tells a cache to keep the set at most five minutes, and less than half a period', () => {
    const at = { ms: START };
    expect(signerAt(at).jwksMaxAgeSeconds).toBe(300);
    expect(signerAt(at, { rotationMinutes: 4 }).jwksMaxAgeSeconds).toBe(120);
  });

  it('refuses options it cannot honour, each at its path', () => {
    let error: unknown;
    try {
      signerAt(
        { ms: START },
        { signingKey: 'short', algorithm: 'HS256' as 'EdDSA', issuer: ' ', rotationMinutes: 0, lifetimeSeconds: 0.5 },
      );
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems.map((problem) => problem.path)).toEqual([
      'signingKey',
      'assertion.algorithm',
      'assertion.issuer',
      'assertion.rotationMinutes',
      'assertion.lifetimeSeconds',
    ]);
  });
});
