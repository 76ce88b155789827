import { createLocalJWKSet, createRemoteJWKSet, errors, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';

/** Where the gateway's public keys come from: its JWKS URL, a key set, or a key getter of jose. */
export type GatewayKeys = string | URL | JSONWebKeySet | JWTVerifyGetKey;

/** The gateway's keys could not be read (network, timeout, not a key set): not the caller's fault. */
export class GatewayKeysUnavailable extends Error {
  constructor(cause: unknown) {
    super("The gateway's public keys could not be fetched", { cause });
    this.name = 'GatewayKeysUnavailable';
  }
}

export interface RemoteKeyOptions {
  /** How long a fetched set is used before it is fetched again. */
  cacheSeconds: number;
}

/**
 * An assertion naming a key the set lacks fetches the set again at once, at
 * most this often. jose's own refetch for an unknown key waits out a 30 s
 * cooldown after each fetch: a development gateway restarted with new keys
 * was refused for those 30 s. Bounded, so made-up key ids cannot make every
 * request a fetch.
 */
export const UNKNOWN_KEY_REFETCH_MS = 5_000;

/**
 * A key getter for jwtVerify. From a URL, jose's remote set: fetched on
 * first use, again after `cacheSeconds`, and at once when an assertion names
 * a key it does not know (at most every `UNKNOWN_KEY_REFETCH_MS`). When a
 * fetch fails, the set fetched last still answers: the gateway publishes each
 * key before it signs with it, so a set a little old still holds the keys in use.
 */
export function keySource(keys: GatewayKeys, options: RemoteKeyOptions): JWTVerifyGetKey {
  if (typeof keys === 'function') return keys;
  if (typeof keys === 'string' || keys instanceof URL) return remote(new URL(keys), options);
  return createLocalJWKSet(keys);
}

function remote(url: URL, options: RemoteKeyOptions): JWTVerifyGetKey {
  const fetched = createRemoteJWKSet(url, { cacheMaxAge: options.cacheSeconds * 1000 });
  let forcedAt = -Infinity;
  let forcing: Promise<void> | null = null;
  /** One refetch for an unknown key, shared by the calls that wait for it; false when the bound says not now. */
  const refetchForUnknownKey = async (): Promise<boolean> => {
    if (!forcing) {
      if (Date.now() - forcedAt < UNKNOWN_KEY_REFETCH_MS) return false;
      forcedAt = Date.now();
      forcing = fetched.reload().finally(() => (forcing = null));
    }
    await forcing;
    return true;
  };
  const lookUp = async (header: Parameters<JWTVerifyGetKey>[0], token: Parameters<JWTVerifyGetKey>[1]) => {
    try {
      return await fetched(header, token);
    } catch (error) {
      // jose refetched already unless it is cooling down from its last fetch.
      if (error instanceof errors.JWKSNoMatchingKey && fetched.coolingDown && (await refetchForUnknownKey()))
        return fetched(header, token);
      throw error;
    }
  };
  return async (header, token) => {
    try {
      return await lookUp(header, token);
    } catch (error) {
      if (!isFetchFailure(error)) throw error;
      const last = fetched.jwks();
      if (last === undefined) throw new GatewayKeysUnavailable(error);
      return createLocalJWKSet(last)(header, token);
    }
  };
}

/**
 * What jose's remote set throws when the set could not be had: a timeout, a
 * network error (not jose's own), or its generic error for a status other
 * than 200 or a body that is not JSON. Key lookups throw jose's specific errors.
 */
function isFetchFailure(error: unknown): boolean {
  if (error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid) return true;
  if (!(error instanceof errors.JOSEError)) return true;
  return error.code === errors.JOSEError.code;
}
