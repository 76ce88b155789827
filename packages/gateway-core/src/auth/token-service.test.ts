import { base64url, generateKeyPair, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { ConfigError, InvalidInputError, UnauthorizedError } from '../errors.js';
import { AGENT_AUDIENCE, TOKEN_ISSUER, TokenService } from './token-service.js';

const KEY = 'k'.repeat(32);
const tokens = new TokenService({ signingKey: KEY });
const agentRequest = { agentId: 'agt_abc', scopes: ['orders:read'], generation: 3, expiresInDays: 30 };

/** A validly signed agent token with whatever header and claims a test wants. */
function forge(claims: Record<string, unknown>, configure: (jwt: SignJWT) => SignJWT = (jwt) => jwt, alg = 'HS256') {
  const jwt = new SignJWT({ scopes: [], gen: 0, jti: 'x', ...claims })
    .setProtectedHeader({ alg })
    .setIssuer(TOKEN_ISSUER)
    .setAudience(AGENT_AUDIENCE)
    .setSubject('agt_abc')
    .setIssuedAt();
  return configure(jwt).sign(new TextEncoder().encode(KEY));
}

async function rejection(
  token: Promise<string> | string,
  verify: (t: string) => Promise<unknown> = (t) => tokens.verifyAgentToken(t),
) {
  const error = await verify(await token).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UnauthorizedError);
  expect(error).toMatchObject({ httpStatus: 401, jsonRpcCode: -32001 });
  return error as UnauthorizedError;
}

describe('TokenService', () => {
  it('refuses a signing key shorter than 32 bytes', () => {
    expect(() => new TokenService({ signingKey: 'k'.repeat(31) })).toThrow(ConfigError);
    expect(() => new TokenService({ signingKey: 'k'.repeat(31) })).toThrow(/^signingKey: must be at least 32 bytes/);
    // 11 three-byte characters are 33 bytes: bytes count, not characters.
    expect(() => new TokenService({ signingKey: '€'.repeat(11) })).not.toThrow();
  });

  it('issues agent tokens whose claims come back from verification', async () => {
    const now = new Date('2030-01-01T00:00:00.000Z');
    const service = new TokenService({ signingKey: KEY, clock: () => now });
    const issued = await service.issueAgentToken(agentRequest);
    expect(issued.expiresAt).toBe('2030-01-31T00:00:00.000Z');
    expect(await service.verifyAgentToken(issued.token)).toMatchObject({
      agentId: 'agt_abc',
      scopes: ['orders:read'],
      generation: 3,
      issuedAt: now,
      expiresAt: new Date(issued.expiresAt),
    });
  });

  it('issues admin tokens that verify as admin tokens', async () => {
    const issued = await tokens.issueAdminToken({ expiresInDays: 90 });
    expect(Date.parse(issued.expiresAt) - Date.now()).toBeGreaterThan(89 * 86_400_000);
    expect(await tokens.verifyAdminToken(issued.token)).toMatchObject({ subject: 'admin' });
  });

  it('refuses a lifetime that is not positive or absurdly long', async () => {
    for (const expiresInDays of [0, -1, Number.NaN, Infinity, 3651]) {
      await expect(tokens.issueAgentToken({ ...agentRequest, expiresInDays })).rejects.toBeInstanceOf(
        InvalidInputError,
      );
    }
  });

  it('never accepts an admin token as an agent token, nor the reverse', async () => {
    const admin = await tokens.issueAdminToken({ expiresInDays: 1 });
    const agent = await tokens.issueAgentToken(agentRequest);
    expect((await rejection(admin.token)).reason).toBe('claims');
    expect((await rejection(agent.token, (t) => tokens.verifyAdminToken(t))).reason).toBe('claims');
  });

  it('rejects a token signed with another key', async () => {
    const other = new TokenService({ signingKey: 'o'.repeat(32) });
    expect((await rejection((await other.issueAgentToken(agentRequest)).token)).reason).toBe('signature');
  });

  it('rejects a token with one bit flipped in its payload or signature', async () => {
    const { token } = await tokens.issueAgentToken(agentRequest);
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const flip = (part: string) => {
      const bytes = base64url.decode(part);
      bytes[0]! ^= 1;
      return base64url.encode(bytes);
    };
    await rejection(`${header}.${flip(payload)}.${signature}`);
    expect((await rejection(`${header}.${payload}.${flip(signature)}`)).reason).toBe('signature');
  });

  it('rejects alg "none"', async () => {
    const { token } = await tokens.issueAgentToken(agentRequest);
    const payload = token.split('.')[1];
    const none = base64url.encode(JSON.stringify({ alg: 'none', typ: 'JWT' }));
    expect((await rejection(`${none}.${payload}.`)).reason).toBe('algorithm');
    await rejection(`${none}.${payload}`);
  });

  it('rejects HS512 with the right key, and RS256', async () => {
    expect((await rejection(forge({}, (jwt) => jwt.setExpirationTime('1h'), 'HS512'))).reason).toBe('algorithm');
    const { privateKey } = await generateKeyPair('RS256');
    const rs256 = new SignJWT({ scopes: [], gen: 0, jti: 'x' })
      .setProtectedHeader({ alg: 'RS256' })
      .setIssuer(TOKEN_ISSUER)
      .setAudience(AGENT_AUDIENCE)
      .setSubject('agt_abc')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(privateKey);
    expect((await rejection(rs256)).reason).toBe('algorithm');
  });

  it('accepts the forging helper’s well-formed token, so the rejections below are about one claim', async () => {
    await expect(tokens.verifyAgentToken(await forge({}, (jwt) => jwt.setExpirationTime('1h')))).resolves.toMatchObject(
      { agentId: 'agt_abc' },
    );
  });

  it('rejects a wrong audience, a wrong issuer and a missing exp', async () => {
    await rejection(forge({}, (jwt) => jwt.setAudience('someone-else').setExpirationTime('1h')));
    await rejection(forge({}, (jwt) => jwt.setIssuer('not-tollgate').setExpirationTime('1h')));
    expect((await rejection(forge({}))).reason).toBe('claims');
  });

  it('rejects an expired token, saying so', async () => {
    const past = new TokenService({ signingKey: KEY, clock: () => new Date(Date.now() - 2 * 86_400_000) });
    const { token } = await past.issueAgentToken({ ...agentRequest, expiresInDays: 1 });
    const error = await rejection(token);
    expect(error.reason).toBe('expired');
    expect(error.message).toBe('Token expired');
  });

  it('rejects agent claims of the wrong shape', async () => {
    await rejection(forge({ scopes: 'orders:read' }, (jwt) => jwt.setExpirationTime('1h')));
    await rejection(forge({ gen: -1 }, (jwt) => jwt.setExpirationTime('1h')));
    await rejection(forge({ gen: '1' }, (jwt) => jwt.setExpirationTime('1h')));
  });

  it('rejects garbage', async () => {
    for (const garbage of ['', 'abc', 'a.b.c', '....', 'x'.repeat(10_000)]) {
      expect((await rejection(garbage)).reason).toBe('malformed');
    }
  });
});

describe('TokenService verified-token cache', () => {
  it('answers a repeated verification from memory, the same claims', async () => {
    const service = new TokenService({ signingKey: KEY });
    const { token } = await service.issueAgentToken(agentRequest);
    const first = await service.verifyAgentToken(token);
    expect(await service.verifyAgentToken(token)).toEqual(first);
  });

  it('still refuses a cached token once its exp has passed', async () => {
    let now = Date.now();
    const service = new TokenService({ signingKey: KEY, clock: () => new Date(now) });
    const { token } = await service.issueAgentToken({ ...agentRequest, expiresInDays: 1 });
    await service.verifyAgentToken(token);
    now += 2 * 86_400_000;
    const error = await service.verifyAgentToken(token).catch((e: unknown) => e as UnauthorizedError);
    expect(error).toBeInstanceOf(UnauthorizedError);
    expect((error as UnauthorizedError).reason).toBe('expired');
  });

  it('never lets a cached admin token pass as an agent token, nor the reverse', async () => {
    const service = new TokenService({ signingKey: KEY });
    const admin = await service.issueAdminToken({ expiresInDays: 1 });
    const agent = await service.issueAgentToken(agentRequest);
    await service.verifyAdminToken(admin.token);
    await service.verifyAgentToken(agent.token);
    await expect(service.verifyAgentToken(admin.token)).rejects.toBeInstanceOf(UnauthorizedError);
    await expect(service.verifyAdminToken(agent.token)).rejects.toBeInstanceOf(UnauthorizedError);
  });
});
