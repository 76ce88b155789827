import type { AgentService, TokenService } from '@tollgate/gateway-core';
import { NotFoundError } from '@tollgate/gateway-core/errors';
import { Hono } from 'hono';
import { isLoopbackRequest } from '../http/loopback.js';

/** Short-lived on purpose: a dev token pasted somewhere stops working by tomorrow. */
const DEV_TOKEN_DAYS = 8 / 24;
const DEV_AGENT_LABEL = 'development agent';
const DEV_AGENT_BUDGET = 1_000_000;
/** Changes made by the development endpoints are audited under this actor. */
const DEV_ACTOR = 'dev';

export interface DevTokenDeps {
  development: boolean;
  agents: AgentService;
  tokens: TokenService;
  adminTokenExpiryDays: number;
  /** Every scope the current tools require, so the dev agent can call them all. */
  knownScopes: () => string[];
}

/**
 * GET /dev/admin-token and GET /dev/token (contract 4.1). Outside development
 * mode the routes answer 404 exactly like any path that does not exist,
 * so a production gateway does not even reveal that they could.
 */
export function devTokenRoutes(deps: DevTokenDeps): Hono {
  const app = new Hono();
  if (!deps.development) return app;

  app.get('/admin-token', async (c) => {
    if (!isLoopbackRequest(c)) throw new NotFoundError('Not found');
    c.header('Cache-Control', 'no-store');
    return c.json(await deps.tokens.issueAdminToken({ expiresInDays: deps.adminTokenExpiryDays }));
  });

  const devAgent = developmentAgent(deps);
  app.get('/token', async (c) => {
    const agentId = await devAgent();
    c.header('Cache-Control', 'no-store');
    return c.json(await deps.agents.issueToken(agentId, DEV_TOKEN_DAYS, DEV_ACTOR));
  });
  return app;
}

/**
 * The development agent, created on first use and kept able to call every
 * current tool. Lookups run one at a time so two first requests cannot
 * create two agents.
 */
function developmentAgent({ agents, knownScopes }: DevTokenDeps): () => Promise<string> {
  let queue: Promise<unknown> = Promise.resolve();
  const ensure = async () => {
    const scopes = knownScopes();
    const existing = (await agents.list()).find((agent) => agent.label === DEV_AGENT_LABEL);
    if (!existing) {
      return (await agents.create({ label: DEV_AGENT_LABEL, dailyTokenBudget: DEV_AGENT_BUDGET, scopes }, DEV_ACTOR))
        .agentId;
    }
    if (!existing.isActive || scopes.some((scope) => !existing.scopes.includes(scope))) {
      await agents.update(
        existing.agentId,
        { isActive: true, scopes: [...new Set([...existing.scopes, ...scopes])] },
        DEV_ACTOR,
      );
    }
    return existing.agentId;
  };
  return () => {
    const next = queue.then(ensure, ensure);
    queue = next.catch(() => undefined);
    return next;
  };
}
