import { NotFoundError, type AgentService, type AuditEvent, type TokenService } from '@tollgate/gateway-core';
import { Hono, type MiddlewareHandler } from 'hono';
import type { GatewayConfig } from './config/gateway-config.js';
import { errorResponse, jsonRpcErrorResponse } from './http/error-response.js';
import { checkOrigin, checkSingleAuthorization, type OriginPolicy } from './http/request-guards.js';
import type { Readiness } from './readiness.js';
import { adminAuthRoutes } from './routes/admin-auth.js';
import { devTokenRoutes } from './routes/dev-tokens.js';
import { healthRoutes } from './routes/health.js';
import { managementRoutes } from './routes/management.js';

export interface GatewayAppDeps {
  config: GatewayConfig;
  agents: AgentService;
  tokens: TokenService;
  readiness: Readiness;
  /** Request id and access log; runs first. */
  requestContext?: MiddlewareHandler;
  /** Records one audit event; never throws or waits. */
  audit: (event: AuditEvent) => void;
  /** Every scope required by the currently registered tools. */
  knownScopes: () => string[];
  /** Extra route groups (the MCP endpoint), mounted before the 404 fallback. */
  mount?: (app: Hono) => void;
  onUnexpectedError?: (error: unknown, path: string) => void;
}

/** The gateway's HTTP surface; every thrown error is mapped in one place. */
export function createGatewayApp(deps: GatewayAppDeps): Hono {
  const { config, agents, tokens, readiness } = deps;
  const app = new Hono();
  const originPolicy = originPolicyOf(config);
  if (deps.requestContext) app.use('*', deps.requestContext);

  // Health probes come from orchestrators with any Host; everything else is guarded.
  for (const path of ['/management/*', '/auth/*', '/dev/*', '/mcp']) {
    app.use(path, async (c, next) => {
      checkOrigin(c, originPolicy);
      checkSingleAuthorization(c);
      await next();
    });
  }

  app.route('/health', healthRoutes(readiness));
  app.route('/auth', adminAuthRoutes({ tokens, apiKey: config.admin.apiKey, tokenExpiryDays: config.admin.tokenExpiryDays }));
  app.route(
    '/dev',
    devTokenRoutes({
      development: config.development,
      agents,
      tokens,
      adminTokenExpiryDays: config.admin.tokenExpiryDays,
      knownScopes: deps.knownScopes,
    }),
  );
  app.route('/management', managementRoutes({ agents, tokens, audit: deps.audit }));
  deps.mount?.(app);

  app.notFound((c) => errorResponse(c, new NotFoundError('Not found')));
  app.onError((error, c) => {
    if (!(error instanceof Error && 'httpStatus' in error)) deps.onUnexpectedError?.(error, c.req.path);
    return c.req.path === '/mcp' ? jsonRpcErrorResponse(c, error) : errorResponse(c, error);
  });
  return app;
}

export function originPolicyOf(config: GatewayConfig): OriginPolicy {
  return {
    allowedOrigins: config.http.allowedOrigins,
    allowedHosts: config.http.allowedHosts,
    listensOnLoopbackOnly: /^(127\.|localhost$|::1$)/.test(config.server.host),
  };
}
