import type { AgentService } from '@tollgate/gateway-core';
import type { AgentRecord } from '@tollgate/gateway-core/store';
import { Hono, type Context } from 'hono';
import type { AdminEnv } from '../http/admin-guard.js';
import { readJsonBody } from '../http/json-body.js';
import { createAgentBody, issueTokenBody, updateAgentBody } from './management-schemas.js';

const DEFAULT_AGENT_TOKEN_DAYS = 30;

/** /management/agents (contract 4.2), behind the management group's admin guard. */
export function agentRoutes(agents: AgentService): Hono<AdminEnv> {
  // Who makes each change: the service audits it under this name.
  const actor = (c: Context<AdminEnv>) => c.get('adminActor') ?? null;

  const app = new Hono<AdminEnv>();
  app.post('/agents', async (c) => {
    const body = await readJsonBody(c, createAgentBody);
    const agent = await agents.create(body, actor(c));
    c.header('Location', `/management/agents/${agent.agentId}`);
    return c.json(agentView(agent), 201);
  });

  app.get('/agents', async (c) => c.json((await agents.list()).map(agentView)));
  app.get('/agents/:agentId', async (c) => c.json(agentView(await agents.get(c.req.param('agentId')))));

  app.put('/agents/:agentId', async (c) => {
    const patch = await readJsonBody(c, updateAgentBody);
    const agent = await agents.update(c.req.param('agentId'), patch, actor(c));
    return c.json(agentView(agent));
  });

  app.delete('/agents/:agentId', async (c) => {
    await agents.delete(c.req.param('agentId'), actor(c));
    return c.body(null, 204);
  });

  app.post('/agents/:agentId/token', async (c) => {
    const body = await readJsonBody(c, issueTokenBody);
    const expiresInDays = body?.expiresInDays ?? DEFAULT_AGENT_TOKEN_DAYS;
    const issued = await agents.issueToken(c.req.param('agentId'), expiresInDays, actor(c));
    c.header('Cache-Control', 'no-store');
    return c.json(issued);
  });

  app.get('/agents/:agentId/budget', async (c) => c.json(await agents.budget(c.req.param('agentId'))));
  app.delete('/agents/:agentId/budget', async (c) => {
    const budget = await agents.resetBudget(c.req.param('agentId'), actor(c));
    return c.json(budget);
  });

  return app;
}

/** The agent record as the API shows it: create, get, list and update alike. */
function agentView(agent: AgentRecord) {
  return {
    agentId: agent.agentId,
    label: agent.label,
    dailyTokenBudget: agent.dailyTokenBudget,
    isActive: agent.isActive,
    allowedTools: agent.allowedTools,
    scopes: agent.scopes,
    externalSubjects: agent.externalSubjects,
    rateLimit: agent.rateLimit,
    confirmWrites: agent.confirmWrites === true,
    createdAt: agent.createdAt,
    updatedAt: agent.updatedAt,
  };
}
