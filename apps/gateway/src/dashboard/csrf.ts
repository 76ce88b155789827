import { createHmac, randomBytes } from 'node:crypto';
import { sameSecret } from '@tollgate/gateway-core/internal';

/**
 * Two CSRF defences stand behind every dashboard change, besides the
 * SameSite=Strict cookie and the origin check:
 *
 * - signed in: a per-session token, the HMAC of the admin token's id. It is
 *   stable for the session, needs no server state (any instance can check
 *   it) and means nothing without the httpOnly cookie it was derived from;
 * - signing in: a double-submit token, a random value in a short-lived
 *   httpOnly cookie that the form must echo.
 */
export class CsrfTokens {
  readonly #key: Buffer;

  /** The key is derived from the JWT signing key, so every instance agrees without new configuration. */
  constructor(signingKey: string) {
    this.#key = createHmac('sha256', signingKey).update('tollgate dashboard csrf').digest();
  }

  forSession(adminTokenId: string): string {
    return createHmac('sha256', this.#key).update(adminTokenId).digest('base64url');
  }
}

/** A fresh random value for the sign-in form's double submit. */
export function randomCsrfValue(): string {
  return randomBytes(32).toString('base64url');
}

/** Constant-time comparison of a submitted token with the expected one; a missing token never matches. */
export function csrfTokenMatches(submitted: unknown, expected: string | undefined): boolean {
  if (typeof submitted !== 'string' || expected === undefined || expected === '') return false;
  return sameSecret(submitted, expected);
}
