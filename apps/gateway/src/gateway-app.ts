import {
  transportFailure,
  type AgentService,
  type BreakerState,
  type GatewayAssertionSigner,
  type McpService,
  type TokenService,
} from '@tollgate/gateway-core';
import { describeError, NotFoundError } from '@tollgate/gateway-core/errors';
import type { AuditLog } from '@tollgate/gateway-core/store';
import { Hono, type MiddlewareHandler } from 'hono';
import type { GatewayConfig } from './config/gateway-config.js';
import { serveFavicon } from './dashboard/favicon.js';
import { dashboardRoutes } from './dashboard/index.js';
import { withResourceMetadata } from './http/bearer-challenge.js';
import { mcpCors } from './http/cors.js';
import type { AdminSignIn } from './http/admin-sign-in.js';
import { errorResponse } from './http/error-response.js';
import { checkOrigin, checkSingleAuthorization, type OriginPolicy } from './http/request-guards.js';
import type { GatewayMetrics } from './observability/metrics.js';
import type { Readiness } from './health/readiness.js';
import type { ToolCatalog } from './registry/tool-catalog.js';
import type { ToolRefresher } from './registry/tool-refresher.js';
import { adminAuthRoutes } from './routes/admin-auth.js';
import { devTokenRoutes } from './routes/dev-tokens.js';
import { healthRoutes } from './routes/health.js';
import { jwksRoutes } from './routes/jwks.js';
import { managementRoutes } from './routes/management.js';
import { BodyAdmission } from './http/body-admission.js';
import { attachFastPath, mcpFastPath } from './mcp-transport/mcp-fast-path.js';
import type { RequestContextMiddleware } from './observability/request-context.js';
import { mcpRoutes, onHono, sendMcpAnswer } from './mcp-transport/mcp-route.js';
import { metricsRoutes } from './routes/metrics.js';
import { oauthMetadataRoutes } from './routes/oauth-metadata.js';
import type { UsageReader } from './usage/usage-reader.js';

/** The parts the routes serve; built by `composeGateway`. */
export interface GatewayAppDeps {
  config: GatewayConfig;
  agents: AgentService;
  tokens: TokenService;
  /** The admin-key check of both sign-ins, throttled per client address. */
  adminSignIn: AdminSignIn;
  mcp: McpService;
  readiness: Readiness;
  auditLog: AuditLog;
  /** Usage over time, for `GET /management/usage` and the dashboard's charts. */
  usage: UsageReader;
  catalog: ToolCatalog;
  refresher: ToolRefresher;
  metrics: GatewayMetrics;
  /** One downstream's breaker, for the dashboard's downstream rows. */
  breakerOf: (downstream: string) => BreakerState | undefined;
  /** search_tools' ranking (issue 28), for the dashboard's tool library. */
  searchTools?: (query: string, limit: number) => Promise<string[]>;
  /**
   * Signs the assertion on forwarded calls; its public keys are served at /.well-known/jwks.json. Absent: no
   * assertions, no JWKS.
   */
  assertions?: GatewayAssertionSigner;
  /** Request id and access log; runs first. */
  requestContext?: RequestContextMiddleware;
  onUnexpectedError?: (error: unknown, path: string) => void;
  /** Told about a dashboard reload of the tools that failed (the page says only that it failed). */
  onRefreshError?: (error: unknown) => void;
}

/** The gateway's HTTP surface: one route table, and every thrown error mapped in one place. */
export function createGatewayApp(deps: GatewayAppDeps): Hono {
  const { config, agents, tokens, readiness, catalog, refresher } = deps;
  const app = new Hono();
  if (deps.requestContext) app.use('*', deps.requestContext);
  // Browser CORS for /mcp, before the guard and the route: preflights are answered (or refused) here, and every answer
  // carries its headers.
  app.use('/mcp', mcpCors(originPolicyOf(config)));
  if (config.oauth) app.use('/mcp', withResourceMetadata(config.oauth.resourceMetadataUrl));
  // Health probes come from orchestrators with any Host; everything else is guarded.
  const guard = requestGuard(originPolicyOf(config));
  for (const path of ['/management/*', '/auth/*', '/dev/*', '/mcp']) app.use(path, guard);

  app.route('/health', healthRoutes(readiness));
  if (deps.assertions) app.route('/', jwksRoutes(deps.assertions));
  if (config.oauth) app.route('/', oauthMetadataRoutes({ oauth: config.oauth, scopes: () => catalog.scopes() }));
  app.route(
    '/auth',
    adminAuthRoutes({
      tokens,
      apiKey: config.admin.apiKey,
      tokenExpiryDays: config.admin.tokenExpiryDays,
      signIn: deps.adminSignIn,
    }),
  );
  app.route(
    '/dev',
    devTokenRoutes({
      development: config.development,
      agents,
      tokens,
      adminTokenExpiryDays: config.admin.tokenExpiryDays,
      knownScopes: () => catalog.scopes(),
    }),
  );
  app.route(
    '/management',
    managementRoutes({ agents, tokens, auditLog: deps.auditLog, catalog, refresher, usage: deps.usage }),
  );
  app.route('/metrics', metricsRoutes(deps.metrics, tokens));
  app.get('/favicon.ico', serveFavicon);
  app.route('/dashboard', dashboardRoutes({ ...deps, refreshTools: (actor) => reloadFromDashboard(deps, actor) }));
  const bodies = new BodyAdmission(config.http.maxPendingBodyBytes);
  const mcpRoute = {
    mcp: deps.mcp,
    maxBodyBytes: config.mcp.maxBodyBytes,
    keepAliveMs: config.mcp.keepAliveMs,
    bodies,
  };
  app.route('/mcp', mcpRoutes(mcpRoute));
  // The server serves POST /mcp without the app when it can (see
  // mcp-transport/mcp-fast-path.ts); same steps, same body bound.
  attachFastPath(
    app,
    mcpFastPath({
      route: mcpRoute,
      policy: originPolicyOf(config),
      resourceMetadataUrl: config.oauth?.resourceMetadataUrl,
      context: deps.requestContext?.node,
      onUnexpectedError: deps.onUnexpectedError,
    }),
  );

  app.notFound((c) => errorResponse(c, new NotFoundError('Not found')));
  app.onError((error, c) => {
    if (!describeError(error).expected) deps.onUnexpectedError?.(error, c.req.path);
    // /mcp clients read JSON-RPC errors: a guard's refusal there is written like the route's own.
    return c.req.path === '/mcp' ? sendMcpAnswer(onHono(c), transportFailure(error)) : errorResponse(c, error);
  });
  return app;
}

function requestGuard(policy: OriginPolicy): MiddlewareHandler {
  return async (c, next) => {
    checkOrigin(c, policy);
    checkSingleAuthorization(c);
    await next();
  };
}

async function reloadFromDashboard(deps: GatewayAppDeps, actor: string): Promise<number> {
  try {
    return (await deps.refresher.reload(actor, 'dashboard')).tools.length;
  } catch (error) {
    deps.onRefreshError?.(error);
    throw error;
  }
}

export function originPolicyOf(config: GatewayConfig): OriginPolicy {
  return {
    allowedOrigins: config.http.allowedOrigins,
    allowedHosts: config.http.allowedHosts,
    listensOnLoopbackOnly: /^(127\.|localhost$|::1$)/.test(config.server.host),
  };
}
