import type { AgentTemplate, ExternalIdentity, TrustedIssuer } from '../auth/external-tokens.js';
import { SubjectTakenError, UnauthorizedError } from '../errors.js';
import { subjectKey } from '../store/agent-records.js';
import type { AgentRecord, AgentStore, ExternalSubject } from '../store/ports.js';

/**
 * How long an identity → agent mapping is trusted without asking
 * the store; the agent record is still read on every call.
 */
const MAPPING_TTL_MS = 10_000;
const MAX_MAPPINGS = 10_000;

export interface ExternalAgentsOptions {
  agents: Pick<AgentStore, 'findByExternalSubject'>;
  /** Creates a provisioned agent (audited by the caller's service). */
  provision: (subject: ExternalSubject, template: AgentTemplate) => Promise<AgentRecord>;
  issuers: readonly TrustedIssuer[];
  clock?: () => number;
}

/**
 * Which agent an external identity acts as: the agent whose external subject
 * list names it, or, where its issuer allows, a new agent made from the
 * issuer's template the first time the identity is seen. Two instances
 * provisioning the same identity at once end with one agent: the store gives
 * an identity to one agent only, and the loser uses the winner's.
 */
export class ExternalAgents {
  readonly #options: ExternalAgentsOptions;
  readonly #clock: () => number;
  readonly #known = new Map<string, { agentId: string; until: number }>();
  readonly #templates: Map<string, AgentTemplate | undefined>;

  constructor(options: ExternalAgentsOptions) {
    this.#options = options;
    this.#clock = options.clock ?? Date.now;
    this.#templates = new Map(options.issuers.map((issuer) => [issuer.issuer, issuer.provision]));
  }

  async agentIdFor(identity: ExternalIdentity): Promise<string> {
    const subject = { issuer: identity.issuer, subject: identity.subject };
    const key = subjectKey(subject);
    const known = this.#known.get(key);
    if (known !== undefined && known.until > this.#clock()) return known.agentId;
    const agentId = (await this.#options.agents.findByExternalSubject(subject)) ?? (await this.#provision(subject));
    this.#remember(key, agentId);
    return agentId;
  }

  /** Drops a mapping the agent record no longer confirms (the identity was moved or removed). */
  forget(subject: ExternalSubject): void {
    this.#known.delete(subjectKey(subject));
  }

  async #provision(subject: ExternalSubject): Promise<string> {
    const template = this.#templates.get(subject.issuer);
    if (template === undefined) throw new UnauthorizedError('Invalid token', 'unknown-agent');
    try {
      return (await this.#options.provision(subject, template)).agentId;
    } catch (error) {
      // Another instance (or request) provisioned it first: that agent is the one.
      if (error instanceof SubjectTakenError) return error.ownerAgentId;
      throw error;
    }
  }

  #remember(key: string, agentId: string): void {
    this.#known.delete(key);
    this.#known.set(key, { agentId, until: this.#clock() + MAPPING_TTL_MS });
    if (this.#known.size > MAX_MAPPINGS) this.#known.delete(this.#known.keys().next().value!);
  }
}
