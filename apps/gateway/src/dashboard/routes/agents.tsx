import type { AgentService, BudgetView } from '@tollgate/gateway-core';
import type { AgentRecord, AuditLog } from '@tollgate/gateway-core/store';
import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ToolCatalog } from '../../registry/tool-catalog.js';
import {
  formValues,
  parseCreateAgentForm,
  parseUpdateAgentForm,
  serviceFieldErrors,
  type FieldError,
} from '../agent-form.js';
import { actor } from '../actor.js';
import type { DashboardContext, DashboardEnv } from '../env.js';
import { notice } from '../notices.js';
import { allowlistChoices } from '../tool-library.js';
import type { AgentFormValues } from '../views/agent-form.js';
import { AgentPage, AgentsPage, DeleteAgentPage, type AgentWithBudget } from '../views/agents.js';
import { AgentUsage } from '../views/agent-usage.js';
import type { UsageReader } from '../../usage/usage-reader.js';

export interface AgentsDeps {
  agents: AgentService;
  catalog: Pick<ToolCatalog, 'definitions' | 'scopes' | 'downstreams'>;
  /** For the agent page's usage section. */
  usage: UsageReader;
  auditLog: AuditLog;
}

/** A refused form, shown again with what was typed. */
type RefusedForm = { values: AgentFormValues; errors: FieldError[] };

/**
 * The agents: list, create, edit, (de)activate, reset today's budget,
 * delete. Every change is audited and answered with a 303 to the page that
 * shows its result, so a reload never repeats it.
 */
export function agentPages(deps: AgentsDeps): Hono<DashboardEnv> {
  const app = new Hono<DashboardEnv>();
  app.get('/agents', (c) => listPage(deps, c));
  app.post('/agents', (c) => createAgent(deps, c));
  app.get('/agents/:agentId', (c) => agentPage(deps, c, c.req.param('agentId')));
  app.post('/agents/:agentId', (c) => updateAgent(deps, c, c.req.param('agentId')));
  app.post('/agents/:agentId/active', (c) => setActive(deps, c, c.req.param('agentId')));
  app.post('/agents/:agentId/budget/reset', (c) => resetBudget(deps, c, c.req.param('agentId')));
  app.get('/agents/:agentId/delete', (c) => confirmDelete(deps, c, c.req.param('agentId')));
  app.post('/agents/:agentId/delete', (c) => deleteAgent(deps, c, c.req.param('agentId')));
  return app;
}

async function listPage(deps: AgentsDeps, c: DashboardContext, createForm?: RefusedForm) {
  const agents: AgentWithBudget[] = await Promise.all(
    (await deps.agents.list()).map(async (agent) => ({ agent, budget: await deps.agents.budget(agent.agentId) })),
  );
  const props = {
    csrfToken: c.get('csrfToken'),
    agents,
    toolNames: allowlistChoices(deps.catalog.definitions(), deps.catalog.downstreams()),
    knownScopes: deps.catalog.scopes(),
  };
  if (createForm) return c.html(<AgentsPage {...props} notice={null} createForm={createForm} />, 400);
  return c.html(<AgentsPage {...props} notice={notice(c)} />);
}

async function agentPage(
  deps: AgentsDeps,
  c: DashboardContext,
  agentId: string,
  status: ContentfulStatusCode = 200,
  editForm?: RefusedForm,
) {
  const [agent, budget] = await Promise.all([deps.agents.get(agentId), deps.agents.budget(agentId)]);
  const usage = await agentUsageSection(deps, agentId, budget);
  const props = {
    csrfToken: c.get('csrfToken'),
    agent,
    budget,
    toolNames: allowlistChoices(deps.catalog.definitions(), deps.catalog.downstreams()),
    knownScopes: deps.catalog.scopes(),
    notice: notice(c),
    usage,
  };
  return c.html(<AgentPage {...props} {...(editForm ? { editForm } : {})} />, status);
}

async function createAgent(deps: AgentsDeps, c: DashboardContext) {
  const form = c.get('form');
  const parsed = parseCreateAgentForm(form);
  if (!parsed.ok) return listPage(deps, c, { values: formValues(form), errors: parsed.errors });
  const agent = await refusedAsFields(deps.agents.create(parsed.value, actor(c)));
  if ('errors' in agent) return listPage(deps, c, { values: formValues(form), errors: agent.errors });
  return c.redirect(`/dashboard/agents/${agent.agentId}?done=created`, 303);
}

async function updateAgent(deps: AgentsDeps, c: DashboardContext, agentId: string) {
  const form = c.get('form');
  const parsed = parseUpdateAgentForm(form);
  if (!parsed.ok) return agentPage(deps, c, agentId, 400, { values: formValues(form), errors: parsed.errors });
  const agent = await refusedAsFields(deps.agents.update(agentId, parsed.value, actor(c)));
  if ('errors' in agent) return agentPage(deps, c, agentId, 400, { values: formValues(form), errors: agent.errors });
  return c.redirect(`/dashboard/agents/${agent.agentId}?done=updated`, 303);
}

/** The service's input refusals (an untrusted issuer, an identity taken) as form errors; anything else is thrown on. */
async function refusedAsFields(change: Promise<AgentRecord>): Promise<AgentRecord | { errors: FieldError[] }> {
  try {
    return await change;
  } catch (error) {
    const errors = serviceFieldErrors(error);
    if (errors === null) throw error;
    return { errors };
  }
}

async function setActive(deps: AgentsDeps, c: DashboardContext, agentId: string) {
  const wanted = c.get('form').isActive;
  if (wanted !== 'true' && wanted !== 'false')
    throw new HTTPException(400, { message: 'isActive must be true or false.' });
  const agent = await deps.agents.update(agentId, { isActive: wanted === 'true' }, actor(c));
  return c.redirect(`/dashboard/agents/${agent.agentId}?done=${agent.isActive ? 'activated' : 'deactivated'}`, 303);
}

async function resetBudget(deps: AgentsDeps, c: DashboardContext, agentId: string) {
  const budget = await deps.agents.resetBudget(agentId, actor(c));
  return c.redirect(`/dashboard/agents/${budget.agentId}?done=budget-reset`, 303);
}

async function confirmDelete(deps: AgentsDeps, c: DashboardContext, agentId: string) {
  return c.html(<DeleteAgentPage csrfToken={c.get('csrfToken')} agent={await deps.agents.get(agentId)} />);
}

async function deleteAgent(deps: AgentsDeps, c: DashboardContext, agentId: string) {
  await deps.agents.delete(agentId, actor(c));
  return c.redirect('/dashboard/agents?done=deleted', 303);
}

const TOKEN_ISSUES_READ = 100;

/** The agent's usage section: today's spend and pace, 30 days of history, last seen, tokens issued. */
async function agentUsageSection(deps: AgentsDeps, agentId: string, budget: BudgetView) {
  const now = Date.now();
  const [[history], [recent], issued] = await Promise.all([
    deps.usage.reports({ agentId, interval: 'day', from: new Date(now - 29 * 24 * 3600_000).toISOString() }, [
      undefined,
    ]),
    deps.usage.reports({ agentId, interval: 'hour', from: new Date(now - 7 * 24 * 3600_000).toISOString() }, [
      undefined,
    ]),
    deps.auditLog.query({ agentId, outcome: 'agent.token-issued', limit: TOKEN_ISSUES_READ }),
  ]);
  const tokensIssued = {
    count: issued.records.length,
    latest: issued.records[0]?.time ?? null,
    more: issued.nextCursor !== null,
  };
  return <AgentUsage budget={budget} history={history!} recent={recent!} tokensIssued={tokensIssued} now={now} />;
}
