/**
 * The signed, short-lived assertion the gateway adds to each forwarded call,
 * and that host-kit's `requireGateway` checks: where it travels and the limits
 * both sides agree on.
 */

/** The request header that carries the assertion to the downstream. */
export const ASSERTION_HEADER = 'Tollgate-Assertion';

/** Where the gateway publishes the public keys that check assertions. */
export const JWKS_PATH = '/.well-known/jwks.json';

/** The algorithms the gateway signs with; a downstream refuses any other (none, HS256, RS256). */
export const ASSERTION_ALGORITHMS = ['EdDSA', 'ES256'] as const;
export type AssertionAlgorithm = (typeof ASSERTION_ALGORITHMS)[number];

/** `exp − iat` is a minute at most: an assertion that leaks is worth little for long. */
export const MAX_ASSERTION_LIFETIME_SECONDS = 60;

/** The `iss` claim unless the gateway is configured otherwise. */
export const DEFAULT_ASSERTION_ISSUER = 'tollgate';
