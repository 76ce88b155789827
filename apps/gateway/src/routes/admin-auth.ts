import { apiKeyMatches, UnauthorizedError, type TokenService } from '@tollgate/gateway-core';
import { Hono } from 'hono';
import { jsonBodyLimit, readJsonBody } from '../http/json-body.js';
import { adminTokenBody } from './management-schemas.js';

export interface AdminAuthDeps {
  tokens: TokenService;
  /** undefined = the endpoint does not exist (contract 5 rule 2). */
  apiKey: string | undefined;
  tokenExpiryDays: number;
}

/** POST /auth/admin/token: exchanges the configured admin API key for an admin JWT. */
export function adminAuthRoutes({ tokens, apiKey, tokenExpiryDays }: AdminAuthDeps): Hono {
  const app = new Hono();
  if (apiKey === undefined) return app;
  app.post('/admin/token', jsonBodyLimit(), async (c) => {
    const body = await readJsonBody(c, adminTokenBody);
    if (!apiKeyMatches(body.apiKey, apiKey)) throw new UnauthorizedError('Invalid API key', 'api-key');
    c.header('Cache-Control', 'no-store');
    return c.json(await tokens.issueAdminToken({ expiresInDays: tokenExpiryDays }));
  });
  return app;
}
