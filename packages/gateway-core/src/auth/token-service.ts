import { randomUUID, webcrypto } from 'node:crypto';
import { jwtVerify, SignJWT, type JWTPayload } from 'jose';
import { invalid, toUnauthorized } from './jwt-refusal.js';
import { VerifiedTokenCache } from './verified-token-cache.js';
import { InvalidInputError } from '../errors.js';
import { checkSigningKey } from '../signing-key.js';
import type { ExternalSubject } from '../store/ports.js';

export const TOKEN_ISSUER = 'tollgate';
export const ADMIN_AUDIENCE = 'tollgate:admin';
export const AGENT_AUDIENCE = 'tollgate:agent';
/** Ten years: anything longer is almost certainly a mistake in days vs seconds. */
export const MAX_TOKEN_LIFETIME_DAYS = 3650;

const ALGORITHM = 'HS256';
const ADMIN_SUBJECT = 'admin';
const DAY_SECONDS = 24 * 60 * 60;

export interface TokenServiceOptions {
  /** At least 32 bytes; a string counts its UTF-8 bytes. */
  signingKey: string | Uint8Array;
  /** Injectable for tests. Default `() => new Date()`. */
  clock?: () => Date;
}

export interface IssuedToken {
  token: string;
  /** ISO 8601 UTC; exactly the token's `exp`. */
  expiresAt: string;
}

export interface AgentTokenRequest {
  agentId: string;
  scopes: string[];
  /** The agent's revocation generation now; a later revocation makes the token invalid. */
  generation: number;
  /** Positive, at most 3650; fractions allowed (e.g. 1/24 for an hour). */
  expiresInDays: number;
}

/** What a verified agent credential says: one of the gateway's tokens, or an OAuth token of a trusted issuer. */
export interface AgentClaims {
  agentId: string;
  scopes: string[];
  /** The revocation generation a gateway token was issued in; null for an external token (its issuer revokes it). */
  generation: number | null;
  /** The token's `jti`; null when an external token has none. */
  tokenId: string | null;
  issuedAt: Date | null;
  expiresAt: Date;
  /** Set for an external token: the identity it was issued to, which the agent must still list. */
  external?: ExternalSubject;
}

export interface AdminClaims {
  subject: string;
  tokenId: string;
  issuedAt: Date;
  expiresAt: Date;
}

/**
 * Issues and verifies the gateway's own JWTs. HS256 only, and the verifier
 * accepts nothing else; `iss`, `aud` and `exp` are always checked. Admin and
 * agent tokens have different audiences, so neither works in the other's place.
 */
export class TokenService {
  readonly #key: Uint8Array;
  readonly #clock: () => Date;
  #cryptoKey: Promise<webcrypto.CryptoKey> | undefined;
  readonly #verified = new VerifiedTokenCache<VerifiedPayload>();

  constructor(options: TokenServiceOptions) {
    this.#key = checkSigningKey(options.signingKey);
    this.#clock = options.clock ?? (() => new Date());
  }

  issueAdminToken(options: { expiresInDays: number }): Promise<IssuedToken> {
    return this.#sign({}, ADMIN_SUBJECT, ADMIN_AUDIENCE, options.expiresInDays);
  }

  issueAgentToken(request: AgentTokenRequest): Promise<IssuedToken> {
    const claims = { scopes: [...request.scopes], gen: request.generation };
    return this.#sign(claims, request.agentId, AGENT_AUDIENCE, request.expiresInDays);
  }

  async verifyAdminToken(token: string): Promise<AdminClaims> {
    const payload = await this.#verify(token, ADMIN_AUDIENCE);
    if (payload.sub !== ADMIN_SUBJECT) throw invalid('claims');
    return {
      subject: payload.sub,
      tokenId: payload.jti,
      issuedAt: seconds(payload.iat),
      expiresAt: seconds(payload.exp),
    };
  }

  /**
   * Every authenticated call asks this, and most tokens were verified before:
   * a remembered one is answered without the async layers of a verification
   * (the promise returned is already settled, as it would be a turn later).
   */
  verifyAgentToken(token: string): Promise<AgentClaims> {
    try {
      const now = this.#clock();
      const known = this.#known(token, AGENT_AUDIENCE, now);
      if (known === undefined) return this.#verifyAnew(token, AGENT_AUDIENCE, now).then(agentClaims);
      return Promise.resolve(agentClaims(known));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  async #sign(claims: JWTPayload, subject: string, audience: string, expiresInDays: number): Promise<IssuedToken> {
    checkLifetime(expiresInDays);
    const issuedAt = Math.floor(this.#clock().getTime() / 1000);
    const expiresAt = issuedAt + Math.max(1, Math.round(expiresInDays * DAY_SECONDS));
    const token = await new SignJWT(claims)
      .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
      .setIssuer(TOKEN_ISSUER)
      .setAudience(audience)
      .setSubject(subject)
      .setJti(randomUUID())
      .setIssuedAt(issuedAt)
      .setExpirationTime(expiresAt)
      .sign(await this.#hmacKey());
    return { token, expiresAt: new Date(expiresAt * 1000).toISOString() };
  }

  /**
   * Imported once. Given the raw bytes, jose imports them into WebCrypto on
   * every sign and verify: one more thread-pool job on each authenticated request.
   */
  #hmacKey(): Promise<webcrypto.CryptoKey> {
    this.#cryptoKey ??= webcrypto.subtle.importKey('raw', this.#key, { name: 'HMAC', hash: 'SHA-256' }, false, [
      'sign',
      'verify',
    ]);
    return this.#cryptoKey;
  }

  /** A token verified before, for this audience and not yet expired. */
  #known(token: string, audience: string, now: Date): VerifiedPayload | undefined {
    const known = this.#verified.get(token, now.getTime());
    // The audience is part of the check: a token verified as one kind never passes as the other.
    return known !== undefined && known.aud === audience ? known : undefined;
  }

  async #verify(token: string, audience: string, now = this.#clock()): Promise<VerifiedPayload> {
    return this.#known(token, audience, now) ?? this.#verifyAnew(token, audience, now);
  }

  /** The signature and claims checked, and the token remembered. */
  async #verifyAnew(token: string, audience: string, now: Date): Promise<VerifiedPayload> {
    try {
      const { payload } = await jwtVerify(token, await this.#hmacKey(), {
        algorithms: [ALGORITHM],
        issuer: TOKEN_ISSUER,
        audience,
        requiredClaims: ['exp', 'iat', 'sub', 'jti'],
        currentDate: now,
      });
      const verified = payload as VerifiedPayload;
      this.#verified.set(token, verified);
      return verified;
    } catch (error) {
      throw toUnauthorized(error);
    }
  }
}

type VerifiedPayload = JWTPayload & { sub: string; jti: string; iat: number; exp: number };

function agentClaims(payload: VerifiedPayload): AgentClaims {
  const { scopes, gen } = payload;
  if (!isStringArray(scopes) || !Number.isSafeInteger(gen) || (gen as number) < 0) throw invalid('claims');
  return {
    agentId: payload.sub,
    scopes,
    generation: gen as number,
    tokenId: payload.jti,
    issuedAt: seconds(payload.iat),
    expiresAt: seconds(payload.exp),
  };
}

function checkLifetime(expiresInDays: number): void {
  if (!Number.isFinite(expiresInDays) || expiresInDays <= 0 || expiresInDays > MAX_TOKEN_LIFETIME_DAYS) {
    throw new InvalidInputError(`expiresInDays must be greater than 0 and at most ${MAX_TOKEN_LIFETIME_DAYS}`, [
      { path: 'expiresInDays', message: `must be greater than 0 and at most ${MAX_TOKEN_LIFETIME_DAYS}` },
    ]);
  }
}

function seconds(value: number): Date {
  return new Date(value * 1000);
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}
