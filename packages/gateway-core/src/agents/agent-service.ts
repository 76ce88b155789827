import type { AuditEvent } from '../audit/trail.js';
import type { AgentTemplate, ExternalTokens } from '../auth/external-tokens.js';
import type { AgentClaims, IssuedToken, TokenService } from '../auth/token-service.js';
import { InvalidInputError, NotFoundError, UnauthorizedError } from '../errors.js';
import type { AgentPatch, AgentRecord, ExternalSubject, GatewayStore, RateLimit } from '../store/ports.js';
import { nextUtcMidnight } from '../time.js';
import { newAgentId } from './agent-id.js';
import { checkAgentIdentifiers, newIdentities } from '../auth/identifiers.js';
import { ExternalAgents } from './external-agents.js';

export interface NewAgent {
  label: string;
  dailyTokenBudget: number;
  allowedTools?: string[] | null;
  scopes?: string[];
  externalSubjects?: ExternalSubject[];
  /** Omitted: the service's `defaultRateLimit`; null: no limit. */
  rateLimit?: RateLimit | null;
  /** Search mode for this agent; omitted or null: the gateway's setting. */
  toolSearch?: AgentRecord['toolSearch'];
  pinnedTools?: string[];
  /** Calls of write tools wait for the user's confirmation; omitted: false. */
  confirmWrites?: boolean;
}

/** The budget record of contract 2.4 as the management API returns it. */
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
  /**
   * Told the id of an agent whose tool list may have changed (allowlist, scopes, activity, deletion),
   * after the change is stored: MCP 2026-07-28 listen streams hear of it. Must not throw or wait.
   */
  onToolAccessChanged?: (agentId: string) => void;
  tokens: TokenService;
  /** OAuth access tokens of trusted issuers, accepted beside the gateway's own tokens. */
  external?: ExternalTokens;
  /**
   * Budget writes this instance has not landed yet (settled after the reply):
   * a budget read waits for the agent's, so it sees the calls already answered.
   */
  settlements?: PendingBudgetWrites;
  /** Told about every change (never about reads), with who made it; must not throw or wait. */
  audit?: (event: AuditEvent) => void;
  clock?: () => Date;
  /** The rate limit of a new agent created without one (default null: no limit). */
  defaultRateLimit?: RateLimit | null;
}

/** Budget writes still on their way to the store (a SettlementQueue). */
export interface PendingBudgetWrites {
  /** Resolves once the agent's writes queued so far have landed or been given up. */
  settled(agentId: string): Promise<void>;
}

/**
 * Who made a management change (`admin:<token id>`, `dashboard:<session>`…), for the audit trail; null when unknown.
 */
export type Actor = string | null;

/**
 * What the management API, the dashboard and the MCP entry do with agents,
 * with the rules that tie the stores together in one place: deactivation
 * revokes every token issued so far; reactivation does not bring them back;
 * deleting an agent makes its tokens unknown. Every change is audited here,
 * with the actor the caller names, so no entry point can forget it. Unknown
 * ids throw NotFoundError (404). The identifiers an agent is made of (label,
 * scopes, identities) are judged here, whoever sends them (agent-input.ts);
 * the shape of a request (types, ranges, unknown fields) is the HTTP layer's job.
 */
export class AgentService {
  readonly #store: AgentServiceOptions['store'];
  readonly #tokens: TokenService;
  readonly #clock: () => Date;
  readonly #settlements: AgentServiceOptions['settlements'];
  readonly #audit: (event: AuditEvent) => void;
  readonly #defaultRateLimit: RateLimit | null;
  readonly #external: ExternalTokens | undefined;
  readonly #externalAgents: ExternalAgents | undefined;
  readonly #onToolAccessChanged: (agentId: string) => void;

  constructor(options: AgentServiceOptions) {
    this.#store = options.store;
    this.#onToolAccessChanged = options.onToolAccessChanged ?? (() => undefined);
    this.#tokens = options.tokens;
    this.#external = options.external;
    this.#externalAgents =
      options.external &&
      new ExternalAgents({
        agents: options.store.agents,
        issuers: options.external.issuers,
        provision: (subject, template) => this.#provision(subject, template),
      });
    this.#settlements = options.settlements;
    this.#audit = options.audit ?? (() => undefined);
    this.#clock = options.clock ?? (() => new Date());
    this.#defaultRateLimit = options.defaultRateLimit ?? null;
  }

  async create(input: NewAgent, actor: Actor = null): Promise<AgentRecord> {
    checkAgentIdentifiers(input);
    this.#checkIssuers(input.externalSubjects);
    const now = this.#clock().toISOString();
    const agent: AgentRecord = {
      agentId: newAgentId(),
      label: input.label,
      dailyTokenBudget: input.dailyTokenBudget,
      isActive: true,
      allowedTools: input.allowedTools ?? null,
      scopes: input.scopes ?? [],
      externalSubjects: input.externalSubjects ?? [],
      rateLimit: input.rateLimit === undefined ? this.#defaultRateLimit : input.rateLimit,
      deactivatedAt: null,
      ...(input.toolSearch != null && { toolSearch: input.toolSearch }),
      ...(input.pinnedTools !== undefined && { pinnedTools: input.pinnedTools }),
      ...(input.confirmWrites === true && { confirmWrites: true }),
      createdAt: now,
      updatedAt: now,
    };
    await this.#store.agents.create(agent);
    this.#changed('agent.created', agent.agentId, actor);
    return agent;
  }

  async get(agentId: string): Promise<AgentRecord> {
    return found(agentId, await this.#store.agents.get(agentId));
  }

  list(): Promise<AgentRecord[]> {
    return this.#store.agents.list();
  }

  /** Partial: omitted fields keep their value. */
  async update(agentId: string, patch: AgentPatch, actor: Actor = null): Promise<AgentRecord> {
    // What the agent already holds is not judged again (see checkAgentIdentifiers).
    const held = await this.get(agentId);
    checkAgentIdentifiers(patch, held);
    this.#checkIssuers(patch.externalSubjects, held);
    const now = this.#clock().toISOString();
    // Recorded with the change itself, so no external token issued before it can outlive a reactivation.
    const stored = patch.isActive === false ? { ...patch, deactivatedAt: now } : patch;
    const updated = found(agentId, await this.#store.agents.update(agentId, stored, now));
    // Bumping the generation even when the agent already was inactive is
    // harmless, and covers a revocation lost to a store outage last time.
    if (patch.isActive === false) await this.#store.revocation.revokeAll(agentId);
    this.#changed('agent.updated', agentId, actor, `fields: ${Object.keys(patch).sort().join(', ') || 'none'}`);
    if (patch.allowedTools !== undefined || patch.scopes !== undefined || patch.isActive !== undefined)
      this.#onToolAccessChanged(agentId);
    return updated;
  }

  async delete(agentId: string, actor: Actor = null): Promise<void> {
    if (!(await this.#store.agents.delete(agentId))) throw notFound(agentId);
    await this.#store.revocation.forget(agentId);
    this.#changed('agent.deleted', agentId, actor);
    this.#onToolAccessChanged(agentId);
  }

  /** Issues a token carrying the agent's scopes and current revocation generation. */
  async issueToken(agentId: string, expiresInDays: number, actor: Actor = null): Promise<IssuedToken> {
    const agent = await this.get(agentId);
    const generation = await this.#store.revocation.generation(agentId);
    const issued = await this.#tokens.issueAgentToken({ agentId, scopes: agent.scopes, generation, expiresInDays });
    this.#changed('agent.token-issued', agentId, actor, `expiresInDays: ${expiresInDays}`);
    return issued;
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
  async resetBudget(agentId: string, actor: Actor = null): Promise<BudgetView> {
    await this.get(agentId);
    await this.#store.budget.reset(agentId, this.#clock());
    this.#changed('agent.budget-reset', agentId, actor);
    return this.budget(agentId);
  }

  /**
   * The full check of an agent bearer token: `verifyToken`, then `agentFor`.
   * Store failures propagate (StoreUnavailableError): never fail open.
   */
  async authenticate(token: string): Promise<AuthenticatedAgent> {
    const claims = await this.verifyToken(token);
    return { agent: await this.agentFor(claims), claims };
  }

  /**
   * Signature, audience and expiry of an agent token: no store read for
   * the gateway's own tokens. An external token also names its agent, which
   * costs a store read the first time its identity is seen (and provisions
   * the agent where the issuer allows it).
   */
  async verifyToken(token: string): Promise<AgentClaims> {
    if (this.#external?.issuerOf(token) === undefined) return this.#tokens.verifyAgentToken(token);
    const identity = await this.#external.verify(token);
    const external = { issuer: identity.issuer, subject: identity.subject };
    const agentId = await this.#externalAgents!.agentIdFor(identity);
    return {
      agentId,
      scopes: identity.scopes,
      generation: null,
      tokenId: identity.tokenId,
      issuedAt: identity.issuedAt,
      expiresAt: identity.expiresAt,
      external,
    };
  }

  /**
   * The agent behind verified claims: it exists, is active, and the token is
   * of its current generation. Its two store reads leave before the first
   * await, so store work the caller sends right before shares their round trip.
   */
  async agentFor(claims: AgentClaims): Promise<AgentRecord> {
    if (claims.external) return this.#externalAgentFor(claims.agentId, claims.external, claims.issuedAt);
    const [agent, generation] = await Promise.all([
      this.#store.agents.get(claims.agentId),
      this.#store.revocation.generation(claims.agentId),
    ]);
    if (!agent) throw new UnauthorizedError('Invalid token', 'unknown-agent');
    if (!agent.isActive) throw new UnauthorizedError('Agent is deactivated', 'inactive');
    if (claims.generation !== generation) throw new UnauthorizedError('Token has been revoked', 'revoked');
    return agent;
  }

  /**
   * The agent of an external identity, which must still list it: removing the
   * identity from the agent (or deleting the agent) refuses its tokens at once.
   * Tokens issued before the agent's last deactivation stay refused after a
   * reactivation (one without `iat` too): what revocation generations do for
   * the gateway's own tokens.
   */
  async #externalAgentFor(agentId: string, identity: ExternalSubject, issuedAt: Date | null): Promise<AgentRecord> {
    const agent = await this.#store.agents.get(agentId);
    if (
      !agent?.externalSubjects.some(
        (listed) => listed.issuer === identity.issuer && listed.subject === identity.subject,
      )
    ) {
      this.#externalAgents?.forget(identity);
      throw new UnauthorizedError('Invalid token', 'unknown-agent');
    }
    if (!agent.isActive) throw new UnauthorizedError('Agent is deactivated', 'inactive');
    const deactivatedAt = agent.deactivatedAt ?? null;
    if (deactivatedAt !== null && !(issuedAt !== null && issuedAt.getTime() > Date.parse(deactivatedAt))) {
      throw new UnauthorizedError('Token has been revoked', 'revoked');
    }
    return agent;
  }

  /**
   * An identity at an issuer the gateway does not trust could never sign in:
   * most likely a typo. One the agent holds already (its issuer since removed
   * from the configuration) does not stop an edit.
   */
  #checkIssuers(subjects: readonly ExternalSubject[] | undefined, held?: AgentRecord): void {
    const trusted = new Set(this.#external?.issuers.map((issuer) => issuer.issuer));
    const fields = newIdentities(subjects, held).flatMap(({ identity, index }) =>
      trusted.has(identity.issuer)
        ? []
        : [{ path: `externalSubjects.${index}.issuer`, message: 'is not a trusted issuer (Gw:OAuth:Issuers)' }],
    );
    if (fields.length > 0)
      throw new InvalidInputError('externalSubjects names an issuer the gateway does not trust', fields);
  }

  /** An agent for an identity seen for the first time, from its issuer's template. */
  #provision(subject: ExternalSubject, template: AgentTemplate): Promise<AgentRecord> {
    // Cut by characters, never inside one (a UTF-16 slice can leave half a surrogate pair).
    const label = [...`${subject.subject} at ${new URL(subject.issuer).host}`].slice(0, MAX_PROVISIONED_LABEL).join('');
    return this.create({ label, ...template, externalSubjects: [subject] }, `oauth:${subject.issuer}`);
  }

  #changed(outcome: `agent.${string}`, agentId: string, actor: Actor, detail: string | null = null): void {
    this.#audit({ kind: 'management', outcome, agentId, actor, detail });
  }
}

/** Long subjects are cut so the label stays readable; the identity itself is kept whole in `externalSubjects`. */
const MAX_PROVISIONED_LABEL = 100;

function found(agentId: string, agent: AgentRecord | null): AgentRecord {
  if (!agent) throw notFound(agentId);
  return agent;
}

function notFound(agentId: string): NotFoundError {
  return new NotFoundError(`Agent ${agentId} not found`);
}
