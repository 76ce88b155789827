import { TooManyCallsError } from '../errors.js';

/** Room for a few clients of one credential resuming at once, not for one agent holding the instance's connections. */
export const DEFAULT_MAX_RESUMES_PER_AGENT = 8;
/** Without a connection limit to stay under (McpService used alone), the gateway's default connection cap's half. */
export const DEFAULT_MAX_RESUMES = 512;

/**
 * The resumes (GET /mcp with Last-Event-ID) waiting on this instance, per
 * agent and in all. Each holds a connection for up to the resume window, so
 * both are bounded, the total below the instance's connection limit: a
 * flood of resumes is refused at once and never takes the connections
 * other clients (and the health probes) need.
 */
export class ResumeAdmission {
  readonly #byAgent = new Map<string, number>();
  #total = 0;

  constructor(
    readonly maxPerAgent: number = DEFAULT_MAX_RESUMES_PER_AGENT,
    readonly maxTotal: number = DEFAULT_MAX_RESUMES,
  ) {
    for (const [name, value] of [
      ['maxResumesPerAgent', maxPerAgent],
      ['maxResumes', maxTotal],
    ] as const) {
      if (!Number.isSafeInteger(value) || value < 1)
        throw new RangeError(`${name} must be a positive integer, got ${value}`);
    }
  }

  /**
   * Takes a place for one of the agent's resumes; the returned function
   * gives it back (once). Throws TooManyCallsError when none is left.
   */
  enter(agentId: string): () => void {
    const held = this.#byAgent.get(agentId) ?? 0;
    if (held >= this.maxPerAgent) {
      throw new TooManyCallsError(
        `Agent ${agentId} already waits on ${this.maxPerAgent} resumed streams on this gateway instance, the ` +
          `most it may; retry when one has ended`,
        this.maxPerAgent,
      );
    }
    if (this.#total >= this.maxTotal) {
      throw new TooManyCallsError(
        `This gateway instance already holds ${this.maxTotal} resumed streams, the most it does at once; retry shortly`,
        this.maxTotal,
      );
    }
    this.#byAgent.set(agentId, held + 1);
    this.#total += 1;
    let inside = true;
    return () => {
      if (!inside) return;
      inside = false;
      this.#total -= 1;
      const left = (this.#byAgent.get(agentId) ?? 1) - 1;
      if (left === 0) this.#byAgent.delete(agentId);
      else this.#byAgent.set(agentId, left);
    };
  }
}
