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
   * Keeps a call's answer for a resume when the client has gone by the time
   * it is ready, or once its stream started. From then on the client holds an
   * event id it can resume with, and the answer is kept whatever the socket
   * seems to say: a drop behind a proxy or a NAT shows only at a later write.
   * `keepCharged` is the pipeline's `keepAnswer`: a charged answer is kept
   * before it is charged, and not charged when the client has left and the
   * store refused it (issue 25, finding 1). `keepIfLost` keeps what the call
   * answered otherwise (a refusal, a failure) the same way, once.
   * `streamStarted` is what the transport calls when it sends the priming event.
   */
  keeper(streamId: string, sessionId: string, clientGone: AbortSignal | undefined): StreamKeeper {
    let streamStarted = false;
    let kept = false;
    const lost = () => streamStarted || clientGone?.aborted === true;
    const keep = async (message: JsonRpcResponse): Promise<boolean> => {
      kept = true;
      try {
        await this.store.keep(streamId, { sessionId, message: JSON.stringify(message) }, this.windowMs);
        return true;
      } catch {
        return false;
      }
    };
    return {
      streamStarted: () => void (streamStarted = true),
      // Not kept: read only if the stream is still there to carry it.
      keepCharged: async (message) => !lost() || (await keep(message)) || !clientGone?.aborted,
      keepIfLost: (message) => {
        // Not kept (store down): the resume answers stream-gone when its window ends.
        void message.then((ready) => (lost() && !kept ? keep(ready) : undefined));
      },
    };
  }

  /**
   * The kept answer of the caller's stream, waiting for it within the window;
   * null when none comes, or the stream is another session's (the same to the caller).
   */
  async kept(
    position: StreamPosition,
    sessionId: string,
    clientGone: AbortSignal | undefined,
  ): Promise<JsonRpcResponse | null> {
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

/**
 * A wake-up for one waiting resume: a notice, its time running out, or its client leaving. One that comes between waits
 * is kept for the next.
 */
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

/** One resumable call's answer, kept for a resume when its client may not get it (see `ResumableStreams.keeper`). */
export interface StreamKeeper {
  streamStarted(): void;
  /** Keeps a charged answer before it is charged when the client may not get it; false: nobody will read it. */
  keepCharged(message: JsonRpcResponse): Promise<boolean>;
  /** Keeps the call's final answer, unless it was kept already, when the client may not get it. */
  keepIfLost(message: Promise<JsonRpcResponse>): void;
}
