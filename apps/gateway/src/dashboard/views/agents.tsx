import type { Child } from 'hono/jsx';
import type { BudgetView } from '@tollgate/gateway-core';
import type { AgentRecord } from '@tollgate/gateway-core/store';
import type { FieldError } from '../agent-form.js';
import { AgentForm, type AgentFormValues } from './agent-form.js';
import { CsrfField, Notice, Page } from './layout.js';
import { Badge, BudgetBar, CopyableBlock, formatNumber, Time } from './parts.js';

export interface AgentWithBudget {
  agent: AgentRecord;
  budget: BudgetView;
}

export interface AgentsPageProps {
  csrfToken: string;
  agents: AgentWithBudget[];
  toolNames: string[];
  knownScopes: string[];
  notice: string | null;
  /** Set when a create was refused: the form opens again with what was typed. */
  createForm?: { values: AgentFormValues; errors: FieldError[] };
}

const EMPTY_AGENT: AgentFormValues = {
  label: '',
  dailyTokenBudget: '100000',
  allowedTools: null,
  scopes: [],
  callsPerMinute: '',
  burst: '',
  identities: [],
  externalSubjects: '',
};

function StatusBadge({ agent }: { agent: AgentRecord }) {
  return agent.isActive ? <Badge health="ok">active</Badge> : <Badge health="danger">inactive</Badge>;
}

export function AgentsPage({ csrfToken, agents, toolNames, knownScopes, notice, createForm }: AgentsPageProps) {
  return (
    <Page title="Agents" session={{ section: 'agents', csrfToken }}>
      <Notice message={notice} />
      <details class="card" open={createForm !== undefined}>
        <summary>
          <strong>New agent</strong>
        </summary>
        <AgentForm
          id="create-agent"
          action="/dashboard/agents"
          submitLabel="Create agent"
          csrfToken={csrfToken}
          values={createForm?.values ?? EMPTY_AGENT}
          errors={createForm?.errors ?? []}
          toolNames={toolNames}
          knownScopes={knownScopes}
          blankRateLimit="the configured default (Gw:RateLimit), or no limit"
        />
      </details>
      {agents.length === 0 ? (
        <p class="muted">No agents yet.</p>
      ) : (
        <ul class="grid plain-list" aria-label="Agents">
          {agents.map(({ agent, budget }) => (
            <li class="card">
              <h2>
                <a href={`/dashboard/agents/${agent.agentId}`}>{agent.label}</a>
              </h2>
              <AgentState agent={agent} budget={budget} />
              <p class="hint">
                Tools: {agent.allowedTools?.length ? agent.allowedTools.join(', ') : 'all'} · Scopes:{' '}
                {agent.scopes.length ? agent.scopes.join(', ') : 'none'} · Rate limit: {rateLimitText(agent)}
              </p>
            </li>
          ))}
        </ul>
      )}
    </Page>
  );
}

export interface AgentPageProps {
  csrfToken: string;
  agent: AgentRecord;
  budget: BudgetView;
  toolNames: string[];
  knownScopes: string[];
  notice: string | null;
  editForm?: { values: AgentFormValues; errors: FieldError[] };
  /** The usage section (spend and pace today, history, last seen, tokens issued). */
  usage?: Child;
}

export function agentFormValues(agent: AgentRecord): AgentFormValues {
  return {
    label: agent.label,
    dailyTokenBudget: String(agent.dailyTokenBudget),
    allowedTools: agent.allowedTools,
    scopes: agent.scopes,
    callsPerMinute: agent.rateLimit ? String(agent.rateLimit.callsPerMinute) : '',
    burst: agent.rateLimit ? String(agent.rateLimit.burst) : '',
    identities: agent.externalSubjects.map((identity) => ({ ...identity, kept: true })),
    externalSubjects: '',
    toolSearch: agent.toolSearch ?? '',
    pinnedTools: (agent.pinnedTools ?? []).join(', '),
    confirmWrites: agent.confirmWrites === true,
  };
}

/** "6 calls/min, burst 3", or "none". */
/**
 * Search mode as the agent record sets it (issue 28); without
 * its own setting the gateway's `Gw:Catalog:Search` applies.
 */
export function toolSearchText(agent: AgentRecord): string {
  const mode = agent.toolSearch;
  if (mode === 'on') return 'on (search_tools and call_tool)';
  if (mode === 'off') return 'off (the whole catalog)';
  if (mode === 'auto') return 'auto (search above the threshold)';
  return "the gateway's setting (Gw:Catalog:Search)";
}

export function rateLimitText(agent: AgentRecord): string {
  return agent.rateLimit
    ? `${formatNumber(agent.rateLimit.callsPerMinute)} calls/min, burst ${formatNumber(agent.rateLimit.burst)}`
    : 'none';
}

export function AgentPage({
  csrfToken,
  agent,
  budget,
  toolNames,
  knownScopes,
  notice,
  editForm,
  usage,
}: AgentPageProps) {
  const base = `/dashboard/agents/${agent.agentId}`;
  return (
    <Page title={agent.label} session={{ section: 'agents', csrfToken }}>
      <p>
        <a href="/dashboard/agents">← All agents</a>
      </p>
      <Notice message={notice} />
      {usage}
      <div class="panels">
        <section class="card" aria-labelledby="state-heading">
          <h2 id="state-heading">State</h2>
          <AgentState agent={agent} budget={budget} />
          <p class="hint">
            {formatNumber(budget.remaining)} remaining · resets <Time iso={budget.resetsAt} />
          </p>
          <p class="hint">Rate limit: {rateLimitText(agent)}</p>
          <p class="hint" data-tool-search>
            Tool search: {toolSearchText(agent)} · Pinned tools:{' '}
            {agent.pinnedTools?.length ? agent.pinnedTools.join(', ') : 'none'}
          </p>
          <p class="hint" data-confirm-writes>
            Write confirmation: {agent.confirmWrites ? 'each write waits for the user' : 'off'}
          </p>
          <div class="actions">
            <form method="post" action={`${base}/active`}>
              <CsrfField token={csrfToken} />
              <input type="hidden" name="isActive" value={agent.isActive ? 'false' : 'true'} />
              <button type="submit" class={agent.isActive ? 'danger' : ''}>
                {agent.isActive ? 'Deactivate' : 'Activate'}
              </button>
            </form>
            <form method="post" action={`${base}/budget/reset`}>
              <CsrfField token={csrfToken} />
              <button type="submit" class="secondary">
                Reset today's budget
              </button>
            </form>
            <a class="button secondary" href={`/dashboard/audit?agent=${encodeURIComponent(agent.agentId)}`}>
              Audit trail
            </a>
          </div>
          {!agent.isActive && (
            <p class="hint">Deactivating revoked every token issued before; activating again does not revive them.</p>
          )}
        </section>
        <section class="card" aria-labelledby="token-heading">
          <h2 id="token-heading">Issue a token</h2>
          <form method="post" action={`${base}/token`}>
            <CsrfField token={csrfToken} />
            <div class="field">
              <label for="expiresInDays">Valid for (days)</label>
              <input
                id="expiresInDays"
                name="expiresInDays"
                type="number"
                min={1}
                max={3650}
                step={1}
                value="30"
                required
              />
            </div>
            <button type="submit" disabled={!agent.isActive}>
              Issue token
            </button>
            {!agent.isActive && <p class="hint">Activate the agent first.</p>}
          </form>
        </section>
      </div>
      <section class="card" aria-labelledby="edit-heading">
        <h2 id="edit-heading">Settings</h2>
        <AgentForm
          id="edit-agent"
          action={base}
          submitLabel="Save changes"
          csrfToken={csrfToken}
          values={editForm?.values ?? agentFormValues(agent)}
          errors={editForm?.errors ?? []}
          toolNames={toolNames}
          knownScopes={knownScopes}
        />
      </section>
      <section class="card" aria-labelledby="delete-heading">
        <h2 id="delete-heading">Delete</h2>
        <p>Deleting the agent makes its tokens unknown at once. Its audit records stay.</p>
        <a class="button danger" href={`${base}/delete`}>
          Delete this agent…
        </a>
      </section>
    </Page>
  );
}

export function DeleteAgentPage({ csrfToken, agent }: { csrfToken: string; agent: AgentRecord }) {
  return (
    <Page title={`Delete ${agent.label}?`} session={{ section: 'agents', csrfToken }}>
      <div class="card">
        <p>
          The agent <strong>{agent.label}</strong> (<span class="mono">{agent.agentId}</span>) and its settings will be
          deleted. Every token it holds stops working at once. This cannot be undone.
        </p>
        <div class="actions">
          <form method="post" action={`/dashboard/agents/${agent.agentId}/delete`}>
            <CsrfField token={csrfToken} />
            <button type="submit" class="danger">
              Delete the agent
            </button>
          </form>
          <a class="button secondary" href={`/dashboard/agents/${agent.agentId}`}>
            Cancel
          </a>
        </div>
      </div>
    </Page>
  );
}

export interface TokenIssuedProps {
  csrfToken: string;
  agent: AgentRecord;
  token: string;
  expiresAt: string;
  clientConfig: string;
}

/** The only time the token is shown: the response is never cached and the token is not stored. */
export function TokenIssuedPage({ csrfToken, agent, token, expiresAt, clientConfig }: TokenIssuedProps) {
  return (
    <Page title={`Token for ${agent.label}`} session={{ section: 'agents', csrfToken }}>
      <div class="alert" role="status">
        <p>
          This token is shown <strong>once</strong>. Copy it now: the gateway does not keep it. It expires{' '}
          <Time iso={expiresAt} />.
        </p>
      </div>
      <CopyableBlock id="agent-token" title="Agent token" copyLabel="Copy token" value={token} />
      <CopyableBlock
        id="client-config"
        title="MCP client configuration"
        copyLabel="Copy configuration"
        hint="Paste into Claude Desktop, Cursor, VS Code or any client taking an mcpServers block."
        value={clientConfig}
      />
      <p>
        <a href={`/dashboard/agents/${agent.agentId}`}>Back to {agent.label}</a>
      </p>
    </Page>
  );
}

/** Active or not, the id, and today's usage: how an agent is shown in the list and on its page. */
function AgentState({ agent, budget }: { agent: AgentRecord; budget: BudgetView }) {
  return (
    <>
      <p class="actions">
        <StatusBadge agent={agent} />
        <span class="mono muted">{agent.agentId}</span>
      </p>
      <BudgetBar id={agent.agentId} used={budget.used} budget={budget.dailyTokenBudget} />
    </>
  );
}
