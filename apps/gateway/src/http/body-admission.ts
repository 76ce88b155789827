import { TransportError } from '@tollgate/gateway-core/errors';

/** No agent may hold more than this share of the instance's pending body bytes. */
const AGENT_SHARE = 1 / 8;

/** Gives back what `admit` counted; safe to call twice. */
export type ReleaseBody = () => void;

/**
 * Bounds the request bytes an instance holds while bodies arrive, so slow
 * or stalled uploads cannot exhaust its memory: a body counts at its
 * declared length (or the size limit when it is chunked) from before the
 * first byte is read until it is read or abandoned. Each agent gets at most
 * an eighth of the total, so one agent's stalled uploads leave room for the
 * others. Callers whose token was refused count together as one owner, ''
 * (only their small bodies are read at all).
 */
export class BodyAdmission {
  readonly #maxBytes: number;
  readonly #maxBytesPerAgent: number;
  readonly #byAgent = new Map<string, number>();
  #total = 0;

  constructor(maxPendingBytes: number) {
    this.#maxBytes = maxPendingBytes;
    this.#maxBytesPerAgent = Math.floor(maxPendingBytes * AGENT_SHARE);
  }

  /** Counts `bytes` for `agentId`, or throws `too-many-uploads` when it would pass either bound. */
  admit(agentId: string, bytes: number): ReleaseBody {
    const held = this.#byAgent.get(agentId) ?? 0;
    // A lone body always fits its agent's share: the size limit, not this bound, caps one body.
    if (held > 0 && held + bytes > this.#maxBytesPerAgent) {
      throw new TransportError(
        'too-many-uploads',
        'This agent is already sending as many request bodies as the gateway holds at once; retry when they are done',
      );
    }
    if (this.#total > 0 && this.#total + bytes > this.#maxBytes) {
      throw new TransportError(
        'too-many-uploads',
        'The gateway is receiving as many request bodies as it holds at once; retry shortly',
      );
    }
    this.#byAgent.set(agentId, held + bytes);
    this.#total += bytes;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#total -= bytes;
      const left = (this.#byAgent.get(agentId) ?? bytes) - bytes;
      if (left > 0) this.#byAgent.set(agentId, left);
      else this.#byAgent.delete(agentId);
    };
  }

  /** Bytes counted now, for tests and metrics. */
  get pendingBytes(): number {
    return this.#total;
  }
}
