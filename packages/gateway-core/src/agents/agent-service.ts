import type { IssuedToken, TokenService } from '../auth/token-service.js';
import { NotFoundError, UnauthorizedError } from '../errors.js';
import type { AgentClaims } from '../auth/token-service.js';
import type { AgentPatch, AgentRecord, GatewayStore } from '../store/ports.js';
import type { SettlementQueue } from '../pipeline/settlement-queue.js';
import { nextUtcMidnight } from '../time.js';
import { newAgentId } from './agent-id.js';

export interface NewAgent {
  label: string;
  dailyTokenBudget: number;
  allowedTools?: string[] | null;
  scopes?: string[];
}

/** The budget record of spec 2.4 as the management API returns it. */
export interface BudgetView {
  agentId: string;
  dailyTokenBudget: number;
  /** Tokens settled today (UTC). */
  used: number;
  /** What the agent can still reserve now: budget minus used minus calls in flight, never below 0. */
  remaining: number;
  /** Next 00:00 UTC, ISO 8601. */
  resetsAt: string;
}

export interface AuthenticatedAgent {
  agent: AgentRecord;
  claims: AgentClaims;
}

export interface AgentServiceOptions {
  store: Pick<GatewayStore, 'agents' | 'revocation' | 'budget'>;
  tokens: TokenService;
  /**
   * Budget writes this instance has not landed yet (settled after the reply):
   * a budget read waits for the agent's, so it sees the calls already answered.
   */
  settlements?: Pick<SettlementQueue, 'settled'>;
  clock?: () => Date;
}

/**
 * What the management API and the MCP entry do with agents, with the rules
 * that tie the stores together in one place: deactivation revokes every
 * token issued so far; reactivation does not bring them back; deleting an
 * agent makes its tokens unknown. Unknown ids throw NotFoundError (404).
 * Input validation (types, ranges, unknown fields) is the HTTP layer's job.
 */
export class AgentService {
  readonly #store: AgentServiceOptions['store'];
  readonly #tokens: TokenService;
  readonly #clock: () => Date;
  readonly #settlements: AgentServiceOptions['settlements'];

  constructor(options: AgentServiceOptions) {
    this.#store = options.store;
    this.#tokens = options.tokens;
    this.#settlements = options.settlements;
    this.#clock = options.clock ?? (() => new Date());
  }

  async create(input: NewAgent): Promise<AgentRecord> {
    const now = this.#clock().toISOString();
    const agent: AgentRecord = {
      agentId: newAgentId(),
      label: input.label,
      dailyTokenBudget: input.dailyTokenBudget,
      isActive: true,
      allowedTools: input.allowedTools ?? null,
      scopes: input.scopes ?? [],
      createdAt: now,
      updatedAt: now,
    };
    await this.#store.agents.create(agent);
    return agent;
  }

  async get(agentId: string): Promise<AgentRecord> {
    return found(agentId, await this.#store.agents.get(agentId));
  }

  list(): Promise<AgentRecord[]> {
    return this.#store.agents.list();
  }

  /** Partial: omitted fields keep their value. */
  async update(agentId: string, patch: AgentPatch): Promise<AgentRecord> {
    const updated = found(agentId, await this.#store.agents.update(agentId, patch, this.#clock().toISOString()));
    // Bumping the generation even when the agent already was inactive is
    // harmless, and covers a revocation lost to a store outage last time.
    if (patch.isActive === false) await this.#store.revocation.revokeAll(agentId);
    return updated;
  }

  async delete(agentId: string): Promise<void> {
    if (!(await this.#store.agents.delete(agentId))) throw notFound(agentId);
    await this.#store.revocation.forget(agentId);
  }

  /** Issues a token carrying the agent's scopes and current revocation generation. */
  async issueToken(agentId: string, expiresInDays: number): Promise<IssuedToken> {
    const agent = await this.get(agentId);
    const generation = await this.#store.revocation.generation(agentId);
    return this.#tokens.issueAgentToken({ agentId, scopes: agent.scopes, generation, expiresInDays });
  }

  async budget(agentId: string): Promise<BudgetView> {
    const agent = await this.get(agentId);
    await this.#settlements?.settled(agentId);
    const now = this.#clock();
    const usage = await this.#store.budget.usage(agentId, now);
    return {
      agentId,
      dailyTokenBudget: agent.dailyTokenBudget,
      used: usage.used,
      remaining: Math.max(agent.dailyTokenBudget - usage.used - usage.reserved, 0),
      resetsAt: nextUtcMidnight(now).toISOString(),
    };
  }

  /** Clears today's usage; calls in flight are still charged when they settle. */
  async resetBudget(agentId: string): Promise<BudgetView> {
    await this.get(agentId);
    await this.#store.budget.reset(agentId, this.#clock());
    return this.budget(agentId);
  }

  /**
   * The full check of an agent bearer token: signature and claims, then the
   * agent exists, is active, and the token is of its current generation.
   * Store failures propagate (StoreUnavailableError): never fail open.
   * `alongside` runs once the token itself checked out, as the store reads
   * leave: work it starts shares their round trip (and is the caller's to
   * undo if authentication then fails).
   */
  async authenticate(token: string, alongside?: (claims: AgentClaims) => void): Promise<AuthenticatedAgent> {
    const claims = await this.#tokens.verifyAgentToken(token);
    const reads = Promise.all([this.#store.agents.get(claims.agentId), this.#store.revocation.generation(claims.agentId)]);
    // Store work started here travels in the same round trip as the two reads.
    alongside?.(claims);
    const [agent, generation] = await reads;
    if (!agent) throw new UnauthorizedError('Invalid token', 'unknown-agent');
    if (!agent.isActive) throw new UnauthorizedError('Agent is deactivated', 'inactive');
    if (claims.generation !== generation) throw new UnauthorizedError('Token has been revoked', 'revoked');
    return { agent, claims };
  }
}

function found(agentId: string, agent: AgentRecord | null): AgentRecord {
  if (!agent) throw notFound(agentId);
  return agent;
}

function notFound(agentId: string): NotFoundError {
  return new NotFoundError(`Agent ${agentId} not found`);
}
