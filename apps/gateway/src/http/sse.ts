import { SSE_CONTENT_TYPE, SSE_KEEP_ALIVE, sseMessage, type JsonRpcResponse } from '@tollgate/gateway-core';
import type { Context } from 'hono';

const SSE_HEADERS = { 'Content-Type': SSE_CONTENT_TYPE, 'Cache-Control': 'no-cache' };

/** One JSON-RPC response as one SSE `message` event (contract 4.3). */
export function sseReply(c: Context, message: JsonRpcResponse): Response {
  return c.body(sseMessage(message), 200, SSE_HEADERS);
}

/**
 * For work that may outlast a proxy's idle timeout: when it settles within
 * `keepAliveMs` the caller answers normally (with the error's own HTTP
 * status); otherwise the 200 SSE stream starts at once, carries a comment
 * every `keepAliveMs`, and ends with the message event, which then holds
 * errors as JSON-RPC errors (the status line is already sent).
 */
export async function replyWithKeepAlive<T>(
  c: Context,
  work: Promise<T>,
  keepAliveMs: number,
  toMessage: (settled: T) => JsonRpcResponse,
): Promise<{ early: T } | { streamed: Response }> {
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<'waiting'>((resolve) => (timer = setTimeout(() => resolve('waiting'), keepAliveMs)));
  const first = await Promise.race([work.then((value) => ({ value })), waited]);
  clearTimeout(timer);
  if (first !== 'waiting') return { early: first.value };

  const encoder = new TextEncoder();
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(SSE_KEEP_ALIVE));
      const beat = setInterval(() => controller.enqueue(encoder.encode(SSE_KEEP_ALIVE)), keepAliveMs);
      void work.then((value) => {
        clearInterval(beat);
        controller.enqueue(encoder.encode(sseMessage(toMessage(value))));
        controller.close();
      });
    },
  });
  return { streamed: c.body(stream, 200, SSE_HEADERS) };
}
