import { errors as joseErrors } from 'jose';
import { UnauthorizedError, type UnauthorizedReason } from '../errors.js';

/**
 * A JWT that failed jose's checks, as the 401 to answer. The reason goes to logs; the caller only
 * learns "expired" or "invalid".
 */
export function toUnauthorized(error: unknown): UnauthorizedError {
  if (error instanceof joseErrors.JWTExpired) {
    return new UnauthorizedError('Token expired', 'expired', { cause: error });
  }
  return invalid(reasonOf(error), error);
}

function reasonOf(error: unknown): UnauthorizedReason {
  if (error instanceof joseErrors.JOSEAlgNotAllowed || error instanceof joseErrors.JOSENotSupported) return 'algorithm';
  if (error instanceof joseErrors.JWSSignatureVerificationFailed || error instanceof joseErrors.JWKSNoMatchingKey)
    return 'signature';
  if (error instanceof joseErrors.JWTClaimValidationFailed) return 'claims';
  return 'malformed';
}

export function invalid(reason: UnauthorizedReason, cause?: unknown): UnauthorizedError {
  return new UnauthorizedError('Invalid token', reason, cause === undefined ? undefined : { cause });
}
