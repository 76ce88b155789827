import { UnauthorizedError } from '../errors.js';

/** The credential of an `Authorization: Bearer <token>` header (RFC 6750 2.1); anything else is 401. */
export function bearerToken(header: string | undefined): string {
  const match = header ? /^Bearer ([A-Za-z0-9._~+/=-]+)$/i.exec(header.trim()) : null;
  if (!match?.[1]) throw new UnauthorizedError('Missing or malformed bearer token', header ? 'malformed' : 'missing');
  return match[1];
}
