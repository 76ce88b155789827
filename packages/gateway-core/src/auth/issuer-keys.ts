import {
  createLocalJWKSet,
  errors as joseErrors,
  jwtVerify,
  type JWTPayload,
  type JWTVerifyGetKey,
  type JWTVerifyOptions,
} from 'jose';
import { IssuerUnavailableError } from '../errors.js';
import { discoverJwksUrl } from './issuer-discovery.js';
import { toUnauthorized } from './jwt-refusal.js';

/**
 * Least time between two attempts to fetch an issuer's keys, whatever the last one gave: what a flood of made-up kids,
 * or an issuer that is down, can cost.
 */
export const DEFAULT_JWKS_COOLDOWN_SECONDS = 10;
/** How long the last good keys stay in use while the issuer cannot be reached. */
export const DEFAULT_JWKS_MAX_STALE_SECONDS = 6 * 3600;
/** Keys this old are fetched again, in the background: the token in hand is judged by the keys held. */
export const JWKS_REFRESH_AFTER_MS = 10 * 60_000;
/** One attempt (discovery and key set together) gives up after this. */
export const DEFAULT_KEY_FETCH_TIMEOUT_MS = 5000;

export interface IssuerKeysOptions {
  issuer: string;
  /** Without it, found through the issuer's metadata (once, then kept). */
  jwksUrl?: string;
  cooldownMs: number;
  maxStaleMs: number;
  fetchTimeoutMs: number;
  fetch: typeof fetch;
  /** Milliseconds, as Date.now. */
  now: () => number;
}

/**
 * One issuer's signing keys: the last good key set, fetched again when it is
 * 10 minutes old or a token names a kid it does not have, at most once per
 * cooldown whether the fetch works or not. While the issuer cannot be
 * reached, the last good keys stay in use (up to `maxStaleMs` after the last
 * good fetch) and a token that needs the issuer is refused at once, without
 * waiting on it again: an issuer that is down or hangs costs one fetch per
 * cooldown, never one per token.
 */
export class IssuerKeys {
  readonly #options: IssuerKeysOptions;
  #keys: { getKey: JWTVerifyGetKey; fetchedAt: number } | undefined;
  #jwksUrl: string | undefined;
  #lastAttempt = Number.NEGATIVE_INFINITY;
  /** Why the last attempt failed; undefined once one works. */
  #failure: unknown;
  #fetching: Promise<void> | undefined;

  constructor(options: IssuerKeysOptions) {
    this.#options = options;
    this.#jwksUrl = options.jwksUrl;
  }

  /**
   * The token's payload once its signature and the checks in `options` pass; an UnauthorizedError or
   * IssuerUnavailableError otherwise.
   */
  async verify(token: string, options: JWTVerifyOptions): Promise<JWTPayload> {
    const keys = await this.#usableKeys();
    try {
      return (await jwtVerify(token, keys, options)).payload;
    } catch (error) {
      if (!(error instanceof joseErrors.JWKSNoMatchingKey)) throw toUnauthorized(error);
      return this.#verifyUnknownKey(token, options, error);
    }
  }

  /** A kid the keys held do not have: the issuer may have rotated, so its keys are fetched again, cooldown allowing. */
  async #verifyUnknownKey(token: string, options: JWTVerifyOptions, noMatch: unknown): Promise<JWTPayload> {
    if (this.#fetching === undefined && !this.#mayFetch()) {
      // Within the cooldown the keys are as fresh as they may be: either the issuer is down (it may have a key we
      // cannot see) or the kid is not its.
      if (this.#failure !== undefined) throw this.#unavailable();
      throw toUnauthorized(noMatch);
    }
    await this.#refresh();
    if (this.#failure !== undefined) throw this.#unavailable();
    try {
      return (await jwtVerify(token, this.#keys!.getKey, options)).payload;
    } catch (error) {
      throw toUnauthorized(error);
    }
  }

  /** The keys to judge a token by now, fetching them first only when none are held (or too old to trust). */
  async #usableKeys(): Promise<JWTVerifyGetKey> {
    const age = this.#keys === undefined ? Number.POSITIVE_INFINITY : this.#options.now() - this.#keys.fetchedAt;
    if (age <= this.#options.maxStaleMs) {
      if (age >= JWKS_REFRESH_AFTER_MS && this.#fetching === undefined && this.#mayFetch()) void this.#refresh();
      return this.#keys!.getKey;
    }
    if (this.#fetching === undefined && !this.#mayFetch()) throw this.#unavailable();
    await this.#refresh();
    if (this.#keys === undefined || this.#options.now() - this.#keys.fetchedAt > this.#options.maxStaleMs)
      throw this.#unavailable();
    return this.#keys.getKey;
  }

  #mayFetch(): boolean {
    return this.#options.now() - this.#lastAttempt >= this.#options.cooldownMs;
  }

  /** One fetch at a time: whoever comes while it runs waits for that one. */
  #refresh(): Promise<void> {
    this.#fetching ??= this.#fetch().finally(() => (this.#fetching = undefined));
    return this.#fetching;
  }

  /** Never throws: the outcome is the state it leaves (new keys, or the failure). */
  async #fetch(): Promise<void> {
    this.#lastAttempt = this.#options.now();
    // One deadline for discovery and key set together: a hanging issuer costs one timeout, not one per step.
    const signal = AbortSignal.timeout(this.#options.fetchTimeoutMs);
    try {
      this.#jwksUrl ??= await discoverJwksUrl(this.#options.issuer, this.#options.fetch, signal);
      const response = await this.#options.fetch(this.#jwksUrl, { headers: { accept: 'application/json' }, signal });
      if (!response.ok) throw new Error(`the key set answered HTTP ${response.status}`);
      const getKey = createLocalJWKSet((await response.json()) as Parameters<typeof createLocalJWKSet>[0]);
      this.#keys = { getKey, fetchedAt: this.#options.now() };
      this.#failure = undefined;
    } catch (error) {
      this.#failure = error;
    }
  }

  #unavailable(): IssuerUnavailableError {
    return new IssuerUnavailableError(`The keys of ${this.#options.issuer} cannot be fetched; try again shortly`, {
      cause: this.#failure,
    });
  }
}
