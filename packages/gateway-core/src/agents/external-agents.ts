import type { AgentTemplate, ExternalIdentity, TrustedIssuer } from '../auth/external-tokens.js';
import { StoreUnavailableError, SubjectTakenError, UnauthorizedError } from '../errors.js';
import { subjectKey } from '../store/agent-records.js';
import type { AgentRecord, AgentStore, ExternalSubject } from '../store/ports.js';

/**
 * How long an identity → agent mapping is trusted without asking
 * the store; the agent record is still read on every call.
 */
const MAPPING_TTL_MS = 10_000;
const MAX_MAPPINGS = 10_000;
/**
 * How long the loser of a provisioning race waits for the winner's agent to
 * be written: a few store round trips, each bounded by the command timeout.
 */
const RACE_WAIT_MS = 5_000;
const RACE_POLL_MAX_MS = 200;

export interface ExternalAgentsOptions {
  agents: Pick<AgentStore, 'findByExternalSubject'>;
  /** Creates a provisioned agent (audited by the caller's service). */
  provision: (subject: ExternalSubject, template: AgentTemplate) => Promise<AgentRecord>;
  issuers: readonly TrustedIssuer[];
  clock?: () => number;
  /** How long the loser of a provisioning race waits for the winner's agent (default 5 s). */
  raceWaitMs?: number;
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
      // Another instance (or request) claimed it first: that agent is the one, once written.
      if (error instanceof SubjectTakenError) return this.#winnerOf(subject);
      throw error;
    }
  }

  /**
   * The winner of a provisioning race claims the identity before it writes
   * its agent (on Redis, two round trips apart), so its id alone names an
   * agent that may not exist yet: a call using it would be refused as an
   * unknown agent (401), telling the client its token is bad. The loser
   * waits until the store names the identity's agent; past the bound (the
   * winner died mid-way) it is refused as a store failure, which a retry
   * gets past once the claim lapses.
   */
  async #winnerOf(subject: ExternalSubject): Promise<string> {
    const bound = this.#options.raceWaitMs ?? RACE_WAIT_MS;
    for (let waited = 0, pause = 5; ; waited += pause, pause = Math.min(pause * 2, RACE_POLL_MAX_MS)) {
      const agentId = await this.#options.agents.findByExternalSubject(subject);
      if (agentId !== null) return agentId;
      if (waited >= bound)
        throw new StoreUnavailableError(
          'The store is unavailable: another request is still provisioning the agent of this identity; try again',
        );
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }

  #remember(key: string, agentId: string): void {
    this.#known.delete(key);
    this.#known.set(key, { agentId, until: this.#clock() + MAPPING_TTL_MS });
    if (this.#known.size > MAX_MAPPINGS) this.#known.delete(this.#known.keys().next().value!);
  }
}
