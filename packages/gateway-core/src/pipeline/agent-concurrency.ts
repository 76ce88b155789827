import { TooManyCallsError } from '../errors.js';

/** Gives the agent's place back; calling it again does nothing. */
export type LeaveCall = () => void;

/**
 * An agent's tools/call requests in flight on this instance: LLM tool loops
 * run a handful of calls side by side, and a fleet of workers sharing one
 * credential a few dozen; 32 is a quarter of the downstream pool's 128
 * connections, so one agent never holds more than a quarter of them.
 */
export const DEFAULT_MAX_CONCURRENT_CALLS_PER_AGENT = 32;

/**
 * How many tools/call requests each agent has in flight on this instance,
 * and the refusal past the limit. A local counter, on purpose: what it
 * protects (the connection pool, the event loop, memory) is per instance,
 * and it costs no store round trip. The count is synchronous, so a refused
 * call is turned away before it reserves budget or reaches the downstream.
 * A limit of 0 turns it off.
 */
export class AgentConcurrency {
  readonly limit: number;
  readonly #inFlight = new Map<string, number>();

  constructor(limit: number = DEFAULT_MAX_CONCURRENT_CALLS_PER_AGENT) {
    if (!Number.isSafeInteger(limit) || limit < 0)
      throw new RangeError(`maxConcurrentCallsPerAgent must be a whole number, 0 or more, got ${limit}`);
    this.limit = limit;
  }

  /** The agent's calls in flight now. */
  inFlight(agentId: string): number {
    return this.#inFlight.get(agentId) ?? 0;
  }

  /** Takes one of the agent's places, or throws TooManyCallsError when it has none left. */
  enter(agentId: string): LeaveCall {
    if (this.limit === 0) return () => undefined;
    const current = this.inFlight(agentId);
    if (current >= this.limit) {
      throw new TooManyCallsError(
        `Agent ${agentId} already has ${this.limit} tool calls in flight, the most this gateway instance runs at ` +
          `once for one agent; retry when one has finished`,
        this.limit,
      );
    }
    this.#inFlight.set(agentId, current + 1);
    let inside = true;
    return () => {
      if (!inside) return;
      inside = false;
      const left = this.inFlight(agentId) - 1;
      // An idle agent leaves no entry behind: the map holds only agents with calls in flight.
      if (left > 0) this.#inFlight.set(agentId, left);
      else this.#inFlight.delete(agentId);
    };
  }
}
