import type { TokenService } from '@tollgate/gateway-core';
import { bearerToken } from '@tollgate/gateway-core/internal';
import { createMiddleware } from 'hono/factory';

/** Hono env of admin routes: the actor is set once the admin token checks out. */
export type AdminEnv = { Variables: { adminActor: string } };

/** Every management call needs an admin JWT (contract 5 rule 1); agent tokens carry another audience. */
export function requireAdmin(tokens: TokenService) {
  return createMiddleware<AdminEnv>(async (c, next) => {
    const claims = await tokens.verifyAdminToken(bearerToken(c.req.header('Authorization')));
    // Who made a change, for the audit trail: the admin token's id (not a secret: it cannot authenticate).
    c.set('adminActor', `admin:${claims.tokenId}`);
    await next();
  });
}
