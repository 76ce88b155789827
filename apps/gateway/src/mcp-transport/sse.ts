import type { JsonRpcResponse } from '@tollgate/gateway-core';
import { SSE_CONTENT_TYPE, SSE_KEEP_ALIVE, sseMessage } from '@tollgate/gateway-core/internal';
import type { McpExchange, McpResponse } from './mcp-exchange.js';

const SSE_HEADERS = { 'Content-Type': SSE_CONTENT_TYPE, 'Cache-Control': 'no-cache' };

/** One JSON-RPC response as one SSE `message` event (contract 4.3). */
export function sseReply<R extends McpResponse>(c: McpExchange<R>, message: JsonRpcResponse): R {
  return sseFrames(c, sseMessage(message));
}

/** SSE frames, already formatted, as a 200 reply. */
export function sseFrames<R extends McpResponse>(c: McpExchange<R>, frames: string): R {
  return c.body(frames, 200, SSE_HEADERS);
}

/**
 * For work that may outlast a proxy's idle timeout: when it settles within
 * `keepAliveMs` the caller answers normally (with the error's own HTTP
 * status); otherwise the 200 SSE stream starts at once, carries a comment
 * every `keepAliveMs`, and ends with `closing`'s frames (a message event,
 * which then holds errors as JSON-RPC errors: the status line is already
 * sent). `opening` is the stream's first frame: a resumable stream's priming
 * event, or a keep-alive comment.
 */
export async function replyWithKeepAlive<T, R extends McpResponse>(
  c: McpExchange<R>,
  work: Promise<T>,
  keepAliveMs: number,
  closing: (settled: T) => string,
  opening = SSE_KEEP_ALIVE,
): Promise<{ early: T } | { streamed: R }> {
  const early = await settledWithin(work, keepAliveMs);
  if (early !== STILL_RUNNING) return { early };

  const encoder = new TextEncoder();
  let beat: NodeJS.Timeout | undefined;
  // Set when the client goes away: the work may go on (a resumable call), but nothing is written any more.
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(opening));
      beat = setInterval(() => controller.enqueue(encoder.encode(SSE_KEEP_ALIVE)), keepAliveMs);
      void work.then((value) => {
        clearInterval(beat);
        if (cancelled) return;
        controller.enqueue(encoder.encode(closing(value)));
        controller.close();
      });
    },
    cancel() {
      cancelled = true;
      clearInterval(beat);
    },
  });
  return { streamed: c.body(stream, 200, SSE_HEADERS) };
}

const STILL_RUNNING: unique symbol = Symbol('still running');

/**
 * The work's value if it settles within `ms`, else `STILL_RUNNING`; rejects
 * as the work does. One promise and one timer (no Promise.race, whose
 * promises and reactions every call would pay for).
 */
function settledWithin<T>(work: Promise<T>, ms: number): Promise<T | typeof STILL_RUNNING> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms, STILL_RUNNING);
    work.then(
      (value) => (clearTimeout(timer), resolve(value)),
      (error: unknown) => (clearTimeout(timer), reject(error)),
    );
  });
}
