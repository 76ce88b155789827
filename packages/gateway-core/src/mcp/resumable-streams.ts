import type { JsonRpcResponse } from '../protocol/jsonrpc.js';
import type { StreamStore } from '../store/ports.js';
import type { StreamPosition } from './stream-id.js';

/**
 * The longest a waiting resume goes without reading the store: only a notice
 * lost (the notice channel down, a reconnection) makes it wait this long.
 */
export const RESUME_RECHECK_MS = 10_000;

/**
 * The answers of tools/call streams whose client went away, kept for a while
 * in the shared store so the client can resume on any instance. Only a lost
 * or streamed answer (a call that outlasted the keep-alive interval) costs a
 * store write; a resume reads once, then again on each notice that an
 * answer was kept for its stream, until it is or the window ends.
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
    const notice = new Notice(clientGone);
    // Watching before the first read: an answer kept in between is read, or its notice heard.
    const stopWatching = await this.store.watch(position.streamId, notice.fire);
    try {
      while (!clientGone?.aborted) {
        // A store outage looks like an answer not kept yet: the window bounds it.
        const kept = await this.store.get(position.streamId).catch(() => null);
        if (kept) return kept.sessionId === sessionId ? (JSON.parse(kept.message) as JsonRpcResponse) : null;
        const left = deadline - Date.now();
        if (left <= 0) return null;
        await notice.next(Math.min(left, RESUME_RECHECK_MS));
      }
      return null;
    } finally {
      stopWatching();
      notice.end();
    }
  }
}

/** A wake-up for one waiting resume: a notice, its time running out, or its client leaving. One that comes between waits is kept for the next. */
class Notice {
  #pending = false;
  #wake: (() => void) | null = null;
  #timer: NodeJS.Timeout | undefined;

  constructor(private readonly clientGone: AbortSignal | undefined) {
    clientGone?.addEventListener('abort', this.fire, { once: true });
  }

  readonly fire = (): void => {
    if (this.#wake) this.#wake();
    else this.#pending = true;
  };

  next(ms: number): Promise<void> {
    if (this.#pending) {
      this.#pending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.#wake = () => {
        clearTimeout(this.#timer);
        this.#wake = null;
        resolve();
      };
      this.#timer = setTimeout(this.#wake, ms);
      this.#timer.unref();
    });
  }

  end(): void {
    clearTimeout(this.#timer);
    this.clientGone?.removeEventListener('abort', this.fire);
  }
}
