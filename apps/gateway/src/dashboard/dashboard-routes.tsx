import {
  apiKeyMatches,
  checkAuditQuery,
  describeError,
  NotFoundError,
  TOOL_CALL_OUTCOMES,
  type AgentService,
  type AuditEvent,
  type AuditLog,
  type AuditQuery,
  type BreakerState,
  type TokenService,
} from '@tollgate/gateway-core';
import { Hono, type Context } from 'hono';
import { csrf } from 'hono/csrf';
import { createMiddleware } from 'hono/factory';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { GatewayConfig } from '../config/gateway-config.js';
import { jsonBodyLimit } from '../http/json-body.js';
import { isLoopbackHost, isLoopbackRequest } from '../http/loopback.js';
import type { Readiness } from '../readiness.js';
import type { ToolCatalog } from '../registry/tool-catalog.js';
import { issueTokenBody } from '../routes/management-schemas.js';
import { parseCreateAgentForm, parseUpdateAgentForm, type FormBody } from './agent-form.js';
import { ENHANCEMENT_SCRIPT, STYLESHEET, type Asset } from './assets.js';
import { CsrfTokens, csrfTokenMatches, randomCsrfValue } from './csrf.js';
import { mcpClientConfig } from './mcp-client-config.js';
import { lastHourStats } from './overview-stats.js';
import {
  endSession,
  isHttps,
  readSession,
  redirectToSignIn,
  SESSION_MAX_DAYS,
  setSignInCookie,
  signInCookie,
  startSession,
  type DashboardSession,
} from './session.js';
import { groupToolsByCategory } from './tool-library.js';
import { AgentPage, AgentsPage, DeleteAgentPage, TokenIssuedPage, type AgentWithBudget } from './views/agents.js';
import { AuditPage } from './views/audit.js';
import { ErrorPage } from './views/error-page.js';
import { OverviewPage } from './views/overview.js';
import { SignInPage } from './views/sign-in.js';
import { ToolsPage } from './views/tools.js';

export interface DashboardDeps {
  config: Pick<GatewayConfig, 'development' | 'admin' | 'jwt'>;
  tokens: TokenService;
  agents: AgentService;
  auditLog: AuditLog;
  catalog: Pick<ToolCatalog, 'definitions' | 'lastLoad' | 'loaded' | 'scopes'>;
  readiness: Pick<Readiness, 'report'>;
  breakerState: () => BreakerState;
  /** Re-reads the downstream's /gw/schema now (as POST /management/tools/refresh does); resolves with how many tools it serves. */
  refreshTools: () => Promise<number>;
  /** Told about every change made from the dashboard, like the management API's audit hook. */
  recordAudit: (event: AuditEvent) => void;
  onUnexpectedError?: (error: unknown, path: string) => void;
}

type DashboardEnv = { Variables: { session: DashboardSession; csrfToken: string; form: FormBody } };
type DashboardContext = Context<DashboardEnv>;

const AUDIT_PAGE_SIZE = 50;
const MANAGEMENT_OUTCOMES = ['agent.created', 'agent.updated', 'agent.deleted', 'agent.token-issued', 'agent.budget-reset', 'tools.refreshed'];
/** Far above any agent form; the dashboard never needs to buffer more. */
const MAX_FORM_BYTES = 256 * 1024;
const MAX_FILTER_LENGTH = 200;
const NOTICES: Record<string, string> = {
  created: 'Agent created.',
  updated: 'Changes saved.',
  activated: 'Agent activated. Tokens issued before its deactivation stay revoked: issue a new one.',
  deactivated: 'Agent deactivated: every token it held is refused from now on.',
  'budget-reset': "Today's budget usage was reset.",
  deleted: 'Agent deleted.',
  'tools-refreshed': "Tools reloaded from the downstream's /gw/schema; every instance follows within seconds.",
};

/**
 * The dashboard at `/dashboard`: server-rendered pages over the same
 * AgentService, audit log and tool catalog as the management API.
 */
export function dashboardRoutes(deps: DashboardDeps): Hono<DashboardEnv> {
  const { tokens, agents } = deps;
  const csrfTokens = new CsrfTokens(deps.config.jwt.signingKey);
  const app = new Hono<DashboardEnv>();
  const notice = (c: DashboardContext) => NOTICES[c.req.query('done') ?? ''] ?? null;
  const changed = (c: DashboardContext, outcome: `${string}.${string}`, agentId: string, detail: string | null = null) =>
    deps.recordAudit({ kind: 'management', outcome, agentId, actor: c.get('session').actor, detail });

  app.use('*', securityHeaders);
  for (const asset of [STYLESHEET, ENHANCEMENT_SCRIPT]) app.get(asset.path, (c) => serveAsset(c, asset));

  // --- signing in: no session yet ---
  const sessionLifetimeDays = Math.min(deps.config.admin.tokenExpiryDays, SESSION_MAX_DAYS);
  // A dev sign-in must also be addressed to a loopback name: a DNS-rebound page reaches 127.0.0.1 under its own host name.
  const devSignInAllowed = (c: Context) => deps.config.development && isLoopbackRequest(c) && isLoopbackHost(c.req.header('Host') ?? '');
  const signInForm = (c: Context, status: ContentfulStatusCode = 200, error?: string) => {
    const csrfValue = randomCsrfValue();
    setSignInCookie(c, csrfValue);
    const keySignIn = deps.config.admin.apiKey !== undefined;
    return c.html(<SignInPage csrfValue={csrfValue} keySignIn={keySignIn} devSignIn={devSignInAllowed(c)} {...(error ? { error } : {})} />, status);
  };
  const signInGuard = createMiddleware<DashboardEnv>(async (c, next) => {
    const form = await c.req.parseBody({ all: true });
    if (!csrfTokenMatches(form._csrf, signInCookie(c))) return signInForm(c, 403, 'The sign-in form expired. Please try again.');
    c.set('form', form);
    await next();
  });
  const signIn = async (c: DashboardContext) => {
    startSession(c, await tokens.issueAdminToken({ expiresInDays: sessionLifetimeDays }));
    return c.redirect('/dashboard', 303);
  };

  app.get('/sign-in', async (c) => ((await readSession(c, tokens)) ? c.redirect('/dashboard', 303) : signInForm(c)));
  app.post('/sign-in', jsonBodyLimit(MAX_FORM_BYTES), sameOrigin, signInGuard, async (c) => {
    const configured = deps.config.admin.apiKey;
    const presented = c.get('form').apiKey;
    if (configured === undefined || typeof presented !== 'string' || !apiKeyMatches(presented, configured)) {
      return signInForm(c, 401, 'That is not the admin API key.');
    }
    return signIn(c);
  });
  app.post('/sign-in/dev', jsonBodyLimit(MAX_FORM_BYTES), async (c, next) => {
    // Outside development mode, or from another machine, the route does not exist.
    if (!devSignInAllowed(c)) throw new NotFoundError('Not found');
    await next();
  }, sameOrigin, signInGuard, signIn);

  // --- everything below needs a session; every change a same-origin request with the session's CSRF token ---
  app.use('*', async (c, next) => {
    const session = await readSession(c, tokens);
    if (!session) return redirectToSignIn(c);
    c.set('session', session);
    c.set('csrfToken', csrfTokens.forSession(session.tokenId));
    await next();
  });
  app.on(['POST', 'PUT', 'PATCH', 'DELETE'], '*', jsonBodyLimit(MAX_FORM_BYTES), sameOrigin, async (c, next) => {
    const form = await c.req.parseBody({ all: true });
    if (!csrfTokenMatches(form._csrf, c.get('csrfToken'))) throw new HTTPException(403, { message: 'The form was not sent from this dashboard session (CSRF token missing or wrong). Reload the page and try again.' });
    c.set('form', form);
    await next();
  });

  app.post('/sign-out', (c) => {
    endSession(c);
    return redirectToSignIn(c);
  });

  app.get('/', async (c) => {
    const [readiness, stats, list] = await Promise.all([deps.readiness.report(), lastHourStats(deps.auditLog), agents.list()]);
    const labels = new Map(list.map((agent) => [agent.agentId, agent.label]));
    return c.html(<OverviewPage csrfToken={c.get('csrfToken')} readiness={readiness} breaker={deps.breakerState()} stats={stats} toolLoad={deps.catalog.lastLoad} labels={labels} />);
  });

  // --- agents ---
  const toolNames = () => deps.catalog.definitions().map((tool) => tool.name);
  const withBudgets = async (): Promise<AgentWithBudget[]> =>
    Promise.all((await agents.list()).map(async (agent) => ({ agent, budget: await agents.budget(agent.agentId) })));
  const agentPage = async (c: DashboardContext, status: ContentfulStatusCode = 200, editForm?: Parameters<typeof AgentPage>[0]['editForm']) => {
    const agentId = c.req.param('agentId')!;
    const [agent, budget] = await Promise.all([agents.get(agentId), agents.budget(agentId)]);
    const props = { csrfToken: c.get('csrfToken'), agent, budget, toolNames: toolNames(), knownScopes: deps.catalog.scopes(), notice: notice(c) };
    return c.html(<AgentPage {...props} {...(editForm ? { editForm } : {})} />, status);
  };

  app.get('/agents', async (c) =>
    c.html(<AgentsPage csrfToken={c.get('csrfToken')} agents={await withBudgets()} toolNames={toolNames()} knownScopes={deps.catalog.scopes()} notice={notice(c)} />),
  );
  app.post('/agents', async (c) => {
    const form = c.get('form');
    const parsed = parseCreateAgentForm(form);
    if (!parsed.ok) {
      const createForm = { values: formValues(form), errors: parsed.errors };
      const page = <AgentsPage csrfToken={c.get('csrfToken')} agents={await withBudgets()} toolNames={toolNames()} knownScopes={deps.catalog.scopes()} notice={null} createForm={createForm} />;
      return c.html(page, 400);
    }
    const agent = await agents.create(parsed.value);
    changed(c, 'agent.created', agent.agentId);
    return c.redirect(`/dashboard/agents/${agent.agentId}?done=created`, 303);
  });
  app.get('/agents/:agentId', (c) => agentPage(c));
  app.post('/agents/:agentId', async (c) => {
    const form = c.get('form');
    const parsed = parseUpdateAgentForm(form);
    if (!parsed.ok) return agentPage(c, 400, { values: formValues(form), errors: parsed.errors });
    const agent = await agents.update(c.req.param('agentId'), parsed.value);
    changed(c, 'agent.updated', agent.agentId, `fields: ${Object.keys(parsed.value).sort().join(', ')}`);
    return c.redirect(`/dashboard/agents/${agent.agentId}?done=updated`, 303);
  });
  app.post('/agents/:agentId/active', async (c) => {
    const wanted = c.get('form').isActive;
    if (wanted !== 'true' && wanted !== 'false') throw new HTTPException(400, { message: 'isActive must be true or false.' });
    const agent = await agents.update(c.req.param('agentId'), { isActive: wanted === 'true' });
    changed(c, 'agent.updated', agent.agentId, 'fields: isActive');
    return c.redirect(`/dashboard/agents/${agent.agentId}?done=${agent.isActive ? 'activated' : 'deactivated'}`, 303);
  });
  app.post('/agents/:agentId/budget/reset', async (c) => {
    const budget = await agents.resetBudget(c.req.param('agentId'));
    changed(c, 'agent.budget-reset', budget.agentId);
    return c.redirect(`/dashboard/agents/${budget.agentId}?done=budget-reset`, 303);
  });
  app.post('/agents/:agentId/token', async (c) => {
    const days = c.get('form').expiresInDays;
    const body = issueTokenBody.safeParse({ expiresInDays: typeof days === 'string' && /^\d+$/.test(days) ? Number(days) : days });
    if (!body.success || body.data?.expiresInDays === undefined) throw new HTTPException(400, { message: 'The validity must be a whole number of days from 1 to 3650.' });
    const agentId = c.req.param('agentId');
    const [agent, issued] = await Promise.all([agents.get(agentId), agents.issueToken(agentId, body.data.expiresInDays)]);
    changed(c, 'agent.token-issued', agentId, `expiresInDays: ${body.data.expiresInDays}`);
    const clientConfig = mcpClientConfig(gatewayOrigin(c), issued.token);
    return c.html(<TokenIssuedPage csrfToken={c.get('csrfToken')} agent={agent} token={issued.token} expiresAt={issued.expiresAt} clientConfig={clientConfig} />);
  });
  app.get('/agents/:agentId/delete', async (c) => c.html(<DeleteAgentPage csrfToken={c.get('csrfToken')} agent={await agents.get(c.req.param('agentId'))} />));
  app.post('/agents/:agentId/delete', async (c) => {
    await agents.delete(c.req.param('agentId'));
    changed(c, 'agent.deleted', c.req.param('agentId'));
    return c.redirect('/dashboard/agents?done=deleted', 303);
  });

  // --- tool library and audit ---
  const toolsPage = (c: DashboardContext, status: ContentfulStatusCode = 200, refreshError?: string) => {
    const filter = (c.req.query('q') ?? '').slice(0, MAX_FILTER_LENGTH);
    const groups = groupToolsByCategory(deps.catalog.definitions());
    return c.html(
      <ToolsPage csrfToken={c.get('csrfToken')} groups={groups} filter={filter} loaded={deps.catalog.loaded} notice={notice(c)} {...(refreshError ? { refreshError } : {})} />,
      status,
    );
  };
  app.get('/tools', (c) => toolsPage(c));
  app.post('/tools/refresh', async (c) => {
    let count: number;
    try {
      count = await deps.refreshTools();
    } catch {
      // The reason can name internal addresses: the log has it, the page says what it means.
      return toolsPage(c, 502, "The downstream's /gw/schema could not be read; the current tools stay in service.");
    }
    deps.recordAudit({ kind: 'management', outcome: 'tools.refreshed', actor: c.get('session').actor, detail: `${count} tools` });
    return c.redirect('/dashboard/tools?done=tools-refreshed', 303);
  });
  app.get('/audit', async (c) => {
    const filters = { agent: queryText(c, 'agent'), tool: queryText(c, 'tool'), outcome: queryText(c, 'outcome') };
    const before = c.req.query('before');
    const query: AuditQuery = {
      limit: AUDIT_PAGE_SIZE,
      ...(filters.agent ? { agentId: filters.agent } : {}),
      ...(filters.tool ? { tool: filters.tool } : {}),
      ...(filters.outcome ? { outcome: filters.outcome } : {}),
      ...(before ? { before } : {}),
    };
    checkAuditQuery(query);
    const [page, list] = await Promise.all([deps.auditLog.query(query), agents.list()]);
    const props = {
      csrfToken: c.get('csrfToken'),
      filters,
      records: page.records,
      nextCursor: page.nextCursor,
      paged: before !== undefined,
      agentIds: list.map(({ agentId, label }) => ({ agentId, label })),
      toolNames: toolNames(),
      outcomes: [...TOOL_CALL_OUTCOMES, ...MANAGEMENT_OUTCOMES],
    };
    return c.html(<AuditPage {...props} />);
  });

  app.notFound((c) => errorPage(c as DashboardContext, 404, 'Not found', 'There is no dashboard page here.'));
  app.onError((error, c) => {
    if (error instanceof HTTPException) return errorPage(c, error.status as ContentfulStatusCode, error.status === 403 ? 'Refused' : 'Bad request', error.message || 'The request was refused.');
    const described = describeError(error);
    if (described.httpStatus >= 500 && !(error instanceof Error && 'httpStatus' in error)) deps.onUnexpectedError?.(error, c.req.path);
    return errorPage(c, described.httpStatus as ContentfulStatusCode, described.title, described.detail);
  });
  return app;
}

/**
 * hono/csrf: a change must come from a page of this origin (Sec-Fetch-Site
 * same-origin, or an Origin equal to the request's). Not enough alone (it
 * trusts what a non-browser client says), hence the tokens as well.
 */
const sameOrigin = csrf();

/** Pages hold CSRF tokens and one-time agent tokens: never cached, never framed, no inline script. */
const securityHeaders = createMiddleware(async (c, next) => {
  await next();
  c.header('Content-Security-Policy', "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'");
  c.header('X-Content-Type-Options', 'nosniff');
  c.header('X-Frame-Options', 'DENY');
  c.header('Referrer-Policy', 'same-origin');
  if (!c.res.headers.has('Cache-Control')) c.header('Cache-Control', 'no-store');
});

function serveAsset(c: Context, asset: Asset): Response {
  // The path carries the content hash: a new build is a new URL.
  return c.body(asset.body, 200, { 'Content-Type': asset.contentType, 'Cache-Control': 'public, max-age=31536000, immutable' });
}

function errorPage(c: DashboardContext, status: ContentfulStatusCode, title: string, detail: string): Response | Promise<Response> {
  const csrfToken = c.get('csrfToken');
  const session = csrfToken ? { section: null, csrfToken } : undefined;
  return c.html(<ErrorPage title={title} detail={detail} {...(session ? { session } : {})} />, status);
}

function queryText(c: Context, name: string): string {
  return (c.req.query(name) ?? '').trim().slice(0, MAX_FILTER_LENGTH);
}

/** The address agents use to reach this gateway, as the browser sees it. */
function gatewayOrigin(c: Context): string {
  const url = new URL(c.req.url);
  if (isHttps(c)) url.protocol = 'https:';
  return url.origin;
}

/** What the user typed, to show the form again after a refusal. */
function formValues(form: FormBody) {
  const all = (name: string) => [form[name] ?? []].flat().filter((item): item is string => typeof item === 'string');
  return {
    label: all('label')[0] ?? '',
    dailyTokenBudget: all('dailyTokenBudget')[0] ?? '',
    allowedTools: all('toolAccess')[0] === 'selected' ? all('allowedTools') : null,
    scopes: all('scopes'),
  };
}
