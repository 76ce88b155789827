import type { TokenService } from '@tollgate/gateway-core';
import { UnauthorizedError } from '@tollgate/gateway-core/errors';
import { Hono } from 'hono';
import type { AdminSignIn } from '../http/admin-sign-in.js';
import { jsonBodyLimit, readJsonBody } from '../http/json-body.js';
import { adminTokenBody } from './management-schemas.js';

export interface AdminAuthDeps {
  tokens: TokenService;
  /** undefined = the endpoint does not exist (contract 5 rule 2). */
  apiKey: string | undefined;
  tokenExpiryDays: number;
  /** Compares the key, throttled per client address. */
  signIn: AdminSignIn;
}

/**
 * Far above any admin API key, and small because the body is read before
 * anyone is authenticated: many anonymous uploads hold little memory.
 */
export const MAX_SIGN_IN_BODY_BYTES = 16 * 1024;

/** POST /auth/admin/token: exchanges the configured admin API key for an admin JWT. */
export function adminAuthRoutes({ tokens, apiKey, tokenExpiryDays, signIn }: AdminAuthDeps): Hono {
  const app = new Hono();
  if (apiKey === undefined) return app;
  app.post('/admin/token', jsonBodyLimit(MAX_SIGN_IN_BODY_BYTES), async (c) => {
    const body = await readJsonBody(c, adminTokenBody);
    if (!(await signIn.verify(c, body.apiKey, apiKey, 'api')))
      throw new UnauthorizedError('Invalid API key', 'api-key');
    c.header('Cache-Control', 'no-store');
    return c.json(await tokens.issueAdminToken({ expiresInDays: tokenExpiryDays }));
  });
  return app;
}
