import { decodeJwt, type JWTPayload } from 'jose';
import { scopeProblem, subjectProblem } from './identifiers.js';
import { UnauthorizedError } from '../errors.js';
import {
  DEFAULT_JWKS_COOLDOWN_SECONDS,
  DEFAULT_JWKS_MAX_STALE_SECONDS,
  DEFAULT_KEY_FETCH_TIMEOUT_MS,
  IssuerKeys,
} from './issuer-keys.js';
import { invalid } from './jwt-refusal.js';
import { VerifiedTokenCache } from './verified-token-cache.js';

export { DEFAULT_JWKS_COOLDOWN_SECONDS, DEFAULT_JWKS_MAX_STALE_SECONDS } from './issuer-keys.js';

/** The asymmetric algorithms an issuer may sign with; HMAC and `none` can never be configured. */
export const EXTERNAL_ALGORITHMS = ['RS256', 'PS256', 'ES256', 'EdDSA'] as const;
export type ExternalAlgorithm = (typeof EXTERNAL_ALGORITHMS)[number];

export const DEFAULT_CLOCK_TOLERANCE_SECONDS = 30;

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
  /** Least time between two fetches of its keys, whatever the last one gave (default 10). */
  jwksCooldownSeconds?: number;
  /** How long its last good keys stay in use while it cannot be reached (default 6 hours). */
  jwksMaxStaleSeconds?: number;
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
  /** For discovery and key sets; default the global fetch. */
  fetch?: typeof fetch;
  /** One attempt to fetch an issuer's keys (discovery included) gives up after this (default 5000). */
  keyFetchTimeoutMs?: number;
}

interface Verified {
  exp: number;
  identity: ExternalIdentity;
}

/**
 * Verifies access tokens of the trusted issuers (the gateway as an OAuth
 * resource server). Keys come from each issuer's JWKS (IssuerKeys): kept,
 * refreshed, fetched again for a `kid` not seen yet, so the issuer can rotate
 * keys without a gateway restart, and used while the issuer is down.
 * Issuer, audience, expiry and not-before are always checked, with the
 * algorithms pinned per issuer.
 */
export class ExternalTokens {
  readonly #issuers = new Map<string, { issuer: TrustedIssuer; keys: IssuerKeys }>();
  readonly #clock: () => Date;
  readonly #verified = new VerifiedTokenCache<Verified>();

  constructor(options: ExternalTokensOptions) {
    this.#clock = options.clock ?? (() => new Date());
    for (const issuer of options.issuers)
      this.#issuers.set(issuer.issuer, { issuer, keys: this.#keysOf(issuer, options) });
  }

  #keysOf(issuer: TrustedIssuer, options: ExternalTokensOptions): IssuerKeys {
    return new IssuerKeys({
      issuer: issuer.issuer,
      ...(issuer.jwksUrl === undefined ? {} : { jwksUrl: issuer.jwksUrl }),
      cooldownMs: (issuer.jwksCooldownSeconds ?? DEFAULT_JWKS_COOLDOWN_SECONDS) * 1000,
      maxStaleMs: (issuer.jwksMaxStaleSeconds ?? DEFAULT_JWKS_MAX_STALE_SECONDS) * 1000,
      fetchTimeoutMs: options.keyFetchTimeoutMs ?? DEFAULT_KEY_FETCH_TIMEOUT_MS,
      fetch: options.fetch ?? fetch,
      now: () => this.#clock().getTime(),
    });
  }

  /** The trusted issuers, in configuration order. */
  get issuers(): TrustedIssuer[] {
    return [...this.#issuers.values()].map((trusted) => trusted.issuer);
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
    const trusted = this.#issuers.get(this.issuerOf(token)?.issuer ?? '');
    if (trusted === undefined) throw invalid('claims');
    const { issuer } = trusted;
    const payload = await trusted.keys.verify(token, {
      issuer: issuer.issuer,
      audience: issuer.audience,
      algorithms: [...(issuer.algorithms ?? EXTERNAL_ALGORITHMS)],
      clockTolerance: issuer.clockToleranceSeconds ?? DEFAULT_CLOCK_TOLERANCE_SECONDS,
      requiredClaims: ['exp'],
      currentDate: now,
    });
    const identity = identityOf(issuer, payload);
    this.#verified.set(token, { exp: payload.exp as number, identity });
    return identity;
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
  if (typeof subject !== 'string' || subjectProblem(subject) !== null)
    throw new UnauthorizedError('Invalid token', 'claims');
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
