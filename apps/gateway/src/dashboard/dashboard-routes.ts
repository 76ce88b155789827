import type { AgentService, TokenService } from '@tollgate/gateway-core';
import type { AuditLog } from '@tollgate/gateway-core/store';
import { Hono } from 'hono';
import type { GatewayConfig } from '../config/gateway-config.js';
import type { AdminSignIn } from '../http/admin-sign-in.js';
import type { Readiness } from '../health/readiness.js';
import type { UsageReader } from '../usage/usage-reader.js';
import type { ToolCatalog } from '../registry/tool-catalog.js';
import { CsrfTokens } from './csrf.js';
import type { BreakerOf } from './downstream-views.js';
import type { DashboardEnv } from './env.js';
import { errorPageHandler, notFoundPage } from './errors.js';
import { formBodyLimit, requireSession, requireSessionToken, sameOrigin } from './guards.js';
import { agentTokenPages } from './routes/agent-token.js';
import { agentPages } from './routes/agents.js';
import { assetPages } from './routes/assets.js';
import { auditPages } from './routes/audit.js';
import { overviewPages } from './routes/overview.js';
import { signInPages } from './routes/sign-in.js';
import { signOutPages } from './routes/sign-out.js';
import { toolPages } from './routes/tools.js';
import { usageDetailPages } from './routes/usage-details.js';
import { securityHeaders } from './security-headers.js';

export interface DashboardDeps {
  config: Pick<GatewayConfig, 'development' | 'admin' | 'jwt'>;
  tokens: TokenService;
  /** The admin-key check, shared with POST /auth/admin/token. */
  adminSignIn: AdminSignIn;
  agents: AgentService;
  auditLog: AuditLog;
  catalog: Pick<ToolCatalog, 'definitions' | 'downstreams' | 'loaded' | 'scopes'>;
  readiness: Pick<Readiness, 'report'>;
  breakerOf: BreakerOf;
  /** Usage over time, for the overview's charts. */
  usage: UsageReader;
  /**
   * Re-reads the downstream's /gw/schema now, as this actor (audited as the management API's refresh is); resolves with
   * how many tools it serves.
   */
  refreshTools: (actor: string) => Promise<number>;
  /** search_tools' ranking, for the tool library's search box. */
  searchTools?: (query: string, limit: number) => Promise<string[]>;
  onUnexpectedError?: (error: unknown, path: string) => void;
}

/**
 * The dashboard at `/dashboard`: server-rendered pages over the same
 * AgentService, audit log and tool catalog as the management API.
 * Hono runs handlers in the order they are added, so the order below is
 * the security model: what is mounted above the session guard is public.
 */
export function dashboardRoutes(deps: DashboardDeps): Hono<DashboardEnv> {
  const app = new Hono<DashboardEnv>();
  app.use('*', securityHeaders);
  app.route('/', assetPages());
  app.route('/', signInPages(deps));

  // Everything below needs a session; every change a same-origin form with the session's CSRF token.
  app.use('*', requireSession(deps.tokens, new CsrfTokens(deps.config.jwt.signingKey)));
  app.on(['POST', 'PUT', 'PATCH', 'DELETE'], '*', formBodyLimit, sameOrigin, requireSessionToken);
  app.route('/', signOutPages());
  app.route('/', overviewPages(deps));
  app.route('/', agentPages(deps));
  app.route('/', agentTokenPages(deps));
  app.route('/', toolPages(deps));
  app.route('/', usageDetailPages(deps));
  app.route('/', auditPages(deps));

  app.notFound(notFoundPage);
  app.onError(errorPageHandler(deps.onUnexpectedError));
  return app;
}
