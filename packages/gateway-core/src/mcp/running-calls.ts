import { ClientGoneError } from '../errors.js';
import type { JsonRpcId } from '../protocol/jsonrpc.js';

/** A running call's cancel signal, and the function that forgets the call once it ends. */
export interface RunningCall {
  signal: AbortSignal;
  done(): void;
}

/**
 * The tools/call requests running on this instance, by session and request
 * id, so a client's `notifications/cancelled` can stop one (MCP
 * cancellation). A notification that reaches another instance finds nothing
 * here and is ignored, as MCP allows: the call then runs to its end.
 */
export class RunningCalls {
  readonly #calls = new Map<string, AbortController>();

  /** Registers a call; its signal also aborts when `clientGone` does. */
  start(sessionId: string, requestId: JsonRpcId, clientGone?: AbortSignal): RunningCall {
    const key = keyOf(sessionId, requestId);
    const controller = new AbortController();
    this.#calls.set(key, controller);
    if (clientGone) follow(clientGone, controller);
    return {
      signal: controller.signal,
      // A second call with the same id replaced this one's entry: leave the newer one alone.
      done: () => void (this.#calls.get(key) === controller && this.#calls.delete(key)),
    };
  }

  /** Cancels the session's call with this id, if it runs here; true when one was found. */
  cancel(sessionId: string, requestId: unknown): boolean {
    if (typeof requestId !== 'string' && typeof requestId !== 'number') return false;
    const controller = this.#calls.get(keyOf(sessionId, requestId));
    controller?.abort(new ClientGoneError('The client cancelled the request (notifications/cancelled)'));
    return controller !== undefined;
  }
}

/**
 * Aborts `controller` when `source` aborts, with its reason (at once if it
 * already has): the signal then aborts on whichever comes first, as
 * `AbortSignal.any` would make it, for a fraction of its cost on every call.
 */
function follow(source: AbortSignal, controller: AbortController): void {
  if (source.aborted) controller.abort(source.reason);
  else source.addEventListener('abort', () => controller.abort(source.reason), { once: true });
}

/** The id's type is part of the key: request 1 and request "1" are different requests. */
function keyOf(sessionId: string, requestId: JsonRpcId): string {
  return `${sessionId} ${typeof requestId} ${String(requestId)}`;
}
