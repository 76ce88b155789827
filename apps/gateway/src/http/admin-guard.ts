import { UnauthorizedError, type TokenService } from '@tollgate/gateway-core';
import { createMiddleware } from 'hono/factory';

/** The bearer credential of a request; one Authorization header, `Bearer <token>`. */
export function bearerToken(header: string | undefined): string {
  const match = header ? /^Bearer ([A-Za-z0-9._~+/=-]+)$/i.exec(header.trim()) : null;
  if (!match?.[1]) throw new UnauthorizedError('Missing or malformed bearer token', header ? 'malformed' : 'missing');
  return match[1];
}

/** Hono env of admin routes: the actor is set once the admin token checks out. */
export type AdminEnv = { Variables: { adminActor: string } };

/** Every management call needs an admin JWT (spec 5 rule 1); agent tokens carry another audience. */
export function requireAdmin(tokens: TokenService) {
  return createMiddleware<AdminEnv>(async (c, next) => {
    const claims = await tokens.verifyAdminToken(bearerToken(c.req.header('Authorization')));
    // Who made a change, for the audit trail: the admin token's id (not a secret: it cannot authenticate).
    c.set('adminActor', `admin:${claims.tokenId}`);
    await next();
  });
}
