import { setTimeout as sleep } from 'node:timers/promises';
import type { JsonRpcResponse } from '../protocol/jsonrpc.js';
import type { StreamStore } from '../store/ports.js';
import type { StreamPosition } from './stream-id.js';

/** How often a resume looks for the answer another instance (or this one) is still working on. */
const RESUME_POLL_MS = 250;

/**
 * The answers of tools/call streams whose client went away, kept for a while
 * in the shared store so the client can resume on any instance. Only a lost
 * or streamed answer (a call that outlasted the keep-alive interval) costs a
 * store write; a resume polls until its answer is kept or the window ends.
 */
export class ResumableStreams {
  constructor(
    private readonly store: StreamStore,
    /** How long an answer is kept, and how long a resume waits for it. */
    readonly windowMs: number,
  ) {}

  /**
   * Keeps `message` for a resume when the client has gone by the time it is
   * ready, or once its stream started: returns the function the transport
   * calls when it sends the priming event. From then on the client holds an
   * event id it can resume with, and the answer is kept whatever the socket
   * seems to say: a drop behind a proxy or a NAT shows only at a later write,
   * when the answer is already charged and would be lost.
   */
  keepIfLost(streamId: string, sessionId: string, clientGone: AbortSignal | undefined, message: Promise<JsonRpcResponse>): () => void {
    let streamStarted = false;
    void message.then(async (ready) => {
      if (!streamStarted && !clientGone?.aborted) return;
      // Not kept (store down): the resume answers stream-gone when its window ends.
      await this.store.keep(streamId, { sessionId, message: JSON.stringify(ready) }, this.windowMs).catch(() => undefined);
    });
    return () => void (streamStarted = true);
  }

  /**
   * The kept answer of the caller's stream, waiting for it within the window;
   * null when none comes, or the stream is another session's (the same to the caller).
   */
  async kept(position: StreamPosition, sessionId: string, clientGone: AbortSignal | undefined): Promise<JsonRpcResponse | null> {
    const deadline = Date.now() + this.windowMs;
    while (!clientGone?.aborted) {
      // A store outage looks like an answer not kept yet: the window bounds it.
      const kept = await this.store.get(position.streamId).catch(() => null);
      if (kept) return kept.sessionId === sessionId ? (JSON.parse(kept.message) as JsonRpcResponse) : null;
      if (Date.now() >= deadline) return null;
      await sleep(RESUME_POLL_MS, undefined, { ref: false });
    }
    return null;
  }
}
