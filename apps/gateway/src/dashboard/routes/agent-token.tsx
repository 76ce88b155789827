import type { AgentService } from '@tollgate/gateway-core';
import { Hono, type Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { issueTokenBody } from '../../routes/management-schemas.js';
import type { FormBody } from '../agent-form.js';
import { actor } from '../actor.js';
import type { DashboardContext, DashboardEnv } from '../env.js';
import { mcpClientConfig } from '../mcp-client-config.js';
import { isHttps } from '../session.js';
import { TokenIssuedPage } from '../views/agents.js';

export interface AgentTokenDeps {
  agents: AgentService;
}

/**
 * Issuing an agent token: the page that shows it is the only time anyone
 * sees it, so it answers the POST itself (no redirect) and is never cached.
 */
export function agentTokenPages(deps: AgentTokenDeps): Hono<DashboardEnv> {
  const app = new Hono<DashboardEnv>();
  app.post('/agents/:agentId/token', (c) => issueToken(deps, c, c.req.param('agentId')));
  return app;
}

async function issueToken(deps: AgentTokenDeps, c: DashboardContext, agentId: string) {
  const days = expiresInDays(c.get('form'));
  const [agent, issued] = await Promise.all([
    deps.agents.get(agentId),
    deps.agents.issueToken(agentId, days, actor(c)),
  ]);
  const clientConfig = mcpClientConfig(gatewayOrigin(c), issued.token);
  return c.html(
    <TokenIssuedPage
      csrfToken={c.get('csrfToken')}
      agent={agent}
      token={issued.token}
      expiresAt={issued.expiresAt}
      clientConfig={clientConfig}
    />,
  );
}

/**
 * The form's text checked by the management API's own schema, so
 * both accept the same validities; unlike the API, no default.
 */
function expiresInDays(form: FormBody): number {
  const days = form.expiresInDays;
  const body = issueTokenBody.safeParse({
    expiresInDays: typeof days === 'string' && /^\d+$/.test(days) ? Number(days) : days,
  });
  if (!body.success || body.data?.expiresInDays === undefined)
    throw new HTTPException(400, { message: 'The validity must be a whole number of days from 1 to 3650.' });
  return body.data.expiresInDays;
}

/** The address agents use to reach this gateway, as the browser sees it. */
function gatewayOrigin(c: Context): string {
  const url = new URL(c.req.url);
  if (isHttps(c)) url.protocol = 'https:';
  return url.origin;
}
