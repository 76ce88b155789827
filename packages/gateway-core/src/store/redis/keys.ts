/** Every key the Redis adapter touches, in one place. */
export class Keys {
  constructor(private readonly prefix: string) {}

  agent(agentId: string): string {
    return `${this.prefix}agent:${agentId}`;
  }

  /** Set of every agent id, for listing. */
  agentIndex(): string {
    return `${this.prefix}agents`;
  }

  generation(agentId: string): string {
    return `${this.prefix}gen:${agentId}`;
  }

  /** Hash of one agent's UTC day: `used` plus one `r:<id>` field per open reservation. */
  budgetDay(agentId: string, day: string): string {
    return `${this.prefix}budget:${agentId}:${day}`;
  }

  session(sessionId: string): string {
    return `${this.prefix}session:${sessionId}`;
  }

  /**
   * Sorted set of one agent's session ids, scored by creation time, for the
   * per-agent cap. Hash-tagged by agent, so anything else of one agent that
   * ever needs to share a slot with it can.
   */
  agentSessions(agentId: string): string {
    return `${this.prefix}sessions:{${agentId}}`;
  }

  /** The kept answer of a stream a client lost. */
  stream(streamId: string): string {
    return `${this.prefix}stream:${streamId}`;
  }

  /** Stream of every audit record (the admin view). */
  auditAll(): string {
    return `${this.prefix}audit:all`;
  }

  /** Stream of one agent's audit records; same ids as in `auditAll`. */
  auditAgent(agentId: string): string {
    return `${this.prefix}audit:agent:${agentId}`;
  }

  /** A cached response (exact tier). */
  cachedResponse(key: string): string {
    return `${this.prefix}cache:r:${key}`;
  }

  /** Hash of one semantic candidate group: responseKey -> `<expiresAtMs>:<base64 vector>`. */
  cacheCandidates(groupKey: string): string {
    return `${this.prefix}cache:c:${groupKey}`;
  }

  cacheGeneration(): string {
    return `${this.prefix}cache:generation`;
  }

  /** Failed admin sign-ins of one client address. */
  signInAttempts(subject: string): string {
    return `${this.prefix}signin:attempts:${subject}`;
  }

  toolRegistryGeneration(): string {
    return `${this.prefix}tools:generation`;
  }
}
