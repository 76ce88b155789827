import type { AgentRecord, AgentService, TokenService } from '@tollgate/gateway-core';
import { Hono } from 'hono';
import { requireAdmin } from '../http/admin-guard.js';
import { jsonBodyLimit, readJsonBody } from '../http/json-body.js';
import { createAgentBody, issueTokenBody, updateAgentBody } from './management-schemas.js';

const DEFAULT_AGENT_TOKEN_DAYS = 30;

export interface ManagementDeps {
  agents: AgentService;
  tokens: TokenService;
}

/** Spec 4.2: every route needs an admin JWT. */
export function managementRoutes({ agents, tokens }: ManagementDeps): Hono {
  const app = new Hono();
  app.use('*', requireAdmin(tokens));
  // After the admin check, so an unauthenticated caller cannot make the gateway buffer anything.
  app.use('*', jsonBodyLimit());

  app.post('/agents', async (c) => {
    const body = await readJsonBody(c, createAgentBody);
    const agent = await agents.create(body);
    c.header('Location', `/management/agents/${agent.agentId}`);
    return c.json(agentView(agent), 201);
  });

  app.get('/agents', async (c) => c.json((await agents.list()).map(agentView)));
  app.get('/agents/:agentId', async (c) => c.json(agentView(await agents.get(c.req.param('agentId')))));

  app.put('/agents/:agentId', async (c) => {
    const patch = await readJsonBody(c, updateAgentBody);
    return c.json(agentView(await agents.update(c.req.param('agentId'), patch)));
  });

  app.delete('/agents/:agentId', async (c) => {
    await agents.delete(c.req.param('agentId'));
    return c.body(null, 204);
  });

  app.post('/agents/:agentId/token', async (c) => {
    const body = await readJsonBody(c, issueTokenBody);
    const issued = await agents.issueToken(c.req.param('agentId'), body?.expiresInDays ?? DEFAULT_AGENT_TOKEN_DAYS);
    c.header('Cache-Control', 'no-store');
    return c.json(issued);
  });

  app.get('/agents/:agentId/budget', async (c) => c.json(await agents.budget(c.req.param('agentId'))));
  app.delete('/agents/:agentId/budget', async (c) => c.json(await agents.resetBudget(c.req.param('agentId'))));

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
    createdAt: agent.createdAt,
    updatedAt: agent.updatedAt,
  };
}
