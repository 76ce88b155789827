import type { AgentRecord, AgentService, AuditEvent, TokenService } from '@tollgate/gateway-core';
import { Hono, type Context } from 'hono';
import { requireAdmin, type AdminEnv } from '../http/admin-guard.js';
import { jsonBodyLimit, readJsonBody } from '../http/json-body.js';
import { createAgentBody, issueTokenBody, updateAgentBody } from './management-schemas.js';

const DEFAULT_AGENT_TOKEN_DAYS = 30;

export interface ManagementDeps {
  agents: AgentService;
  tokens: TokenService;
  /** Told about every change (never about reads). */
  audit: (event: AuditEvent) => void;
}

/** Spec 4.2: every route needs an admin JWT. */
export function managementRoutes({ agents, tokens, audit }: ManagementDeps): Hono<AdminEnv> {
  const changed = (c: Context<AdminEnv>, outcome: `agent.${string}`, agentId: string, detail: string | null = null) =>
    audit({ kind: 'management', outcome, agentId, actor: c.get('adminActor') ?? null, detail });

  const app = new Hono<AdminEnv>();
  app.use('*', requireAdmin(tokens));
  // After the admin check, so an unauthenticated caller cannot make the gateway buffer anything.
  app.use('*', jsonBodyLimit());

  app.post('/agents', async (c) => {
    const body = await readJsonBody(c, createAgentBody);
    const agent = await agents.create(body);
    changed(c, 'agent.created', agent.agentId);
    c.header('Location', `/management/agents/${agent.agentId}`);
    return c.json(agentView(agent), 201);
  });

  app.get('/agents', async (c) => c.json((await agents.list()).map(agentView)));
  app.get('/agents/:agentId', async (c) => c.json(agentView(await agents.get(c.req.param('agentId')))));

  app.put('/agents/:agentId', async (c) => {
    const patch = await readJsonBody(c, updateAgentBody);
    const agent = await agents.update(c.req.param('agentId'), patch);
    changed(c, 'agent.updated', agent.agentId, `fields: ${Object.keys(patch).sort().join(', ') || 'none'}`);
    return c.json(agentView(agent));
  });

  app.delete('/agents/:agentId', async (c) => {
    await agents.delete(c.req.param('agentId'));
    changed(c, 'agent.deleted', c.req.param('agentId'));
    return c.body(null, 204);
  });

  app.post('/agents/:agentId/token', async (c) => {
    const body = await readJsonBody(c, issueTokenBody);
    const expiresInDays = body?.expiresInDays ?? DEFAULT_AGENT_TOKEN_DAYS;
    const issued = await agents.issueToken(c.req.param('agentId'), expiresInDays);
    changed(c, 'agent.token-issued', c.req.param('agentId'), `expiresInDays: ${expiresInDays}`);
    c.header('Cache-Control', 'no-store');
    return c.json(issued);
  });

  app.get('/agents/:agentId/budget', async (c) => c.json(await agents.budget(c.req.param('agentId'))));
  app.delete('/agents/:agentId/budget', async (c) => {
    const budget = await agents.resetBudget(c.req.param('agentId'));
    changed(c, 'agent.budget-reset', budget.agentId);
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
    createdAt: agent.createdAt,
    updatedAt: agent.updatedAt,
  };
}
