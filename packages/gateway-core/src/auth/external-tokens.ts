import { createRemoteJWKSet, decodeJwt, errors as joseErrors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { scopeProblem, subjectProblem } from '../agents/agent-input.js';
import { IssuerUnavailableError, UnauthorizedError } from '../errors.js';
import { discoverJwksUrl } from './issuer-discovery.js';
import { invalid, toUnauthorized } from './jwt-refusal.js';
import { VerifiedTokenCache } from './verified-token-cache.js';

/** The asymmetric algorithms an issuer may sign with; HMAC and `none` can never be configured. */
export const EXTERNAL_ALGORITHMS = ['RS256', 'PS256', 'ES256', 'EdDSA'] as const;
export type ExternalAlgorithm = (typeof EXTERNAL_ALGORITHMS)[number];

export const DEFAULT_CLOCK_TOLERANCE_SECONDS = 30;
/** Least time between two fetches of an issuer's keys for a `kid` not seen yet: what a flood of made-up kids can cost. */
export const DEFAULT_JWKS_COOLDOWN_SECONDS = 10;

/** What a new agent gets when an issuer provisions agents on first sight. */
export interface AgentTemplate {
  dailyTokenBudget: number;
  allowedTools: string[] | null;
  scopes: string[];
}

/** An OAuth authorization server whose access tokens the gateway accepts. */
export interface TrustedIssuer {
  /** Exactly the tokens' `iss`. */
  issuer: string;
  /** Without it, `jwks_uri` from the issuer's metadata (OpenID discovery, then RFC 8414). */
  jwksUrl?: string;
  /** The `aud` a token must carry (RFC 8707: the gateway's resource URL). */
  audience: string;
  /** Default: all of `EXTERNAL_ALGORITHMS`. */
  algorithms?: readonly ExternalAlgorithm[];
  clockToleranceSeconds?: number;
  /** The claim that names the agent: `sub` (default), or `client_id`/`azp` for tokens of a client acting for itself. */
  subjectClaim?: string;
  jwksCooldownSeconds?: number;
  /** Set: an identity seen for the first time gets an agent made from this template. */
  provision?: AgentTemplate;
}

/** Who a verified external token speaks for, and what it grants. */
export interface ExternalIdentity {
  issuer: string;
  subject: string;
  /** From `scope` (space-separated) or `scp` (string or list); empty when the token carries neither. */
  scopes: string[];
  tokenId: string | null;
  issuedAt: Date | null;
  expiresAt: Date;
}

export interface ExternalTokensOptions {
  issuers: readonly TrustedIssuer[];
  clock?: () => Date;
  /** For discovery; default the global fetch. */
  fetch?: typeof fetch;
}

interface Verified {
  exp: number;
  identity: ExternalIdentity;
}

/**
 * Verifies access tokens of the trusted issuers (the gateway as an OAuth
 * resource server). Keys come from each issuer's JWKS through jose's remote
 * key set: cached, refetched when a token names a `kid` not seen yet (at most
 * once per cooldown), so the issuer can rotate keys without a gateway restart.
 * Issuer, audience, expiry and not-before are always checked, with the
 * algorithms pinned per issuer.
 */
export class ExternalTokens {
  readonly #issuers = new Map<string, IssuerKeys>();
  readonly #clock: () => Date;
  readonly #verified = new VerifiedTokenCache<Verified>();

  constructor(options: ExternalTokensOptions) {
    this.#clock = options.clock ?? (() => new Date());
    for (const issuer of options.issuers) this.#issuers.set(issuer.issuer, new IssuerKeys(issuer, options.fetch ?? fetch));
  }

  /** The trusted issuers, in configuration order. */
  get issuers(): TrustedIssuer[] {
    return [...this.#issuers.values()].map((keys) => keys.issuer);
  }

  /**
   * The trusted issuer a token claims to come from, before anything is
   * verified: only which verifier judges the token depends on it.
   */
  issuerOf(token: string): TrustedIssuer | undefined {
    let claims: JWTPayload;
    try {
      claims = decodeJwt(token);
    } catch {
      return undefined;
    }
    return typeof claims.iss === 'string' ? this.#issuers.get(claims.iss)?.issuer : undefined;
  }

  async verify(token: string): Promise<ExternalIdentity> {
    const now = this.#clock();
    const known = this.#verified.get(token, now.getTime());
    if (known !== undefined) return known.identity;
    const keys = this.#issuers.get(this.issuerOf(token)?.issuer ?? '');
    if (keys === undefined) throw invalid('claims');
    const payload = await keys.verify(token, now);
    const identity = identityOf(keys.issuer, payload);
    this.#verified.set(token, { exp: payload.exp as number, identity });
    return identity;
  }
}

/** One issuer's keys, fetched on first use; a failed discovery is tried again on the next token. */
class IssuerKeys {
  #keys: Promise<JWTVerifyGetKey> | undefined;

  constructor(
    readonly issuer: TrustedIssuer,
    private readonly fetcher: typeof fetch,
  ) {}

  async verify(token: string, now: Date): Promise<JWTPayload> {
    const keys = await this.#keySet();
    try {
      const { payload } = await jwtVerify(token, keys, {
        issuer: this.issuer.issuer,
        audience: this.issuer.audience,
        algorithms: [...(this.issuer.algorithms ?? EXTERNAL_ALGORITHMS)],
        clockTolerance: this.issuer.clockToleranceSeconds ?? DEFAULT_CLOCK_TOLERANCE_SECONDS,
        requiredClaims: ['exp'],
        currentDate: now,
      });
      return payload;
    } catch (error) {
      throw keysUnreachable(error) ? unavailable(this.issuer, error) : toUnauthorized(error);
    }
  }

  #keySet(): Promise<JWTVerifyGetKey> {
    this.#keys ??= this.#resolve();
    return this.#keys.catch((error: unknown) => {
      this.#keys = undefined;
      throw unavailable(this.issuer, error);
    });
  }

  async #resolve(): Promise<JWTVerifyGetKey> {
    const url = this.issuer.jwksUrl ?? (await discoverJwksUrl(this.issuer.issuer, this.fetcher));
    const cooldown = (this.issuer.jwksCooldownSeconds ?? DEFAULT_JWKS_COOLDOWN_SECONDS) * 1000;
    return createRemoteJWKSet(new URL(url), { cooldownDuration: cooldown, timeoutDuration: 5000 });
  }
}

/**
 * Who the token speaks for and what it grants, judged by the rules a subject
 * or scope typed into the management API must pass: a token is one more way
 * an identity enters (provisioning copies it into an agent), so a subject of
 * 9,000 characters, or with a newline or a bidi override, and a scope that
 * reads as two, are refused here as they are there.
 */
function identityOf(issuer: TrustedIssuer, payload: JWTPayload): ExternalIdentity {
  const claim = issuer.subjectClaim ?? 'sub';
  const subject = payload[claim];
  if (typeof subject !== 'string' || subjectProblem(subject) !== null) throw new UnauthorizedError('Invalid token', 'claims');
  const scopes = scopesOf(payload);
  if (scopes.some((scope) => scopeProblem(scope) !== null)) throw new UnauthorizedError('Invalid token', 'claims');
  return {
    issuer: issuer.issuer,
    subject,
    scopes,
    tokenId: typeof payload.jti === 'string' ? payload.jti : null,
    issuedAt: typeof payload.iat === 'number' ? new Date(payload.iat * 1000) : null,
    expiresAt: new Date((payload.exp as number) * 1000),
  };
}

/** `scope` is RFC 9068's (space-separated, and only space); Entra ID and others use `scp`, as a string or a list. */
function scopesOf(payload: JWTPayload): string[] {
  const granted = payload.scope ?? payload.scp;
  if (typeof granted === 'string') return granted.split(' ').filter((scope) => scope !== '');
  if (Array.isArray(granted)) return granted.filter((scope): scope is string => typeof scope === 'string');
  return [];
}

/** The issuer's key set could not be read (down, slow, or not a key set): the token itself may be fine. */
function keysUnreachable(error: unknown): boolean {
  if (error instanceof joseErrors.JWKSTimeout || error instanceof joseErrors.JWKSInvalid) return true;
  // A failed fetch (TypeError), or jose's generic error for a non-200 or non-JSON key set answer.
  return error instanceof TypeError || (error instanceof joseErrors.JOSEError && error.code === 'ERR_JOSE_GENERIC');
}

function unavailable(issuer: TrustedIssuer, cause: unknown): IssuerUnavailableError {
  if (cause instanceof IssuerUnavailableError) return cause;
  return new IssuerUnavailableError(`The keys of ${issuer.issuer} cannot be fetched; try again shortly`, { cause });
}
