import type { ListenReply } from '@tollgate/gateway-core';
import { SSE_CONTENT_TYPE, SSE_KEEP_ALIVE, sseMessage } from '@tollgate/gateway-core/internal';
import type { McpExchange, McpResponse } from './mcp-exchange.js';

/**
 * A `subscriptions/listen` stream (MCP 2026-07-28): the acknowledgement
 * first, then each notification as it comes, and a keep-alive comment every
 * `keepAliveMs` so proxies and clients do not close a quiet stream. It ends
 * only when the client closes it, which ends the subscription.
 */
export function listenStream<R extends McpResponse>(c: McpExchange<R>, reply: ListenReply, keepAliveMs: number): R {
  const encoder = new TextEncoder();
  let beat: NodeJS.Timeout | undefined;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(sseMessage(reply.acknowledged)));
      reply.deliver((message) => controller.enqueue(encoder.encode(sseMessage(message))));
      beat = setInterval(() => controller.enqueue(encoder.encode(SSE_KEEP_ALIVE)), keepAliveMs);
      beat.unref();
    },
    cancel() {
      clearInterval(beat);
      reply.close();
    },
  });
  // X-Accel-Buffering: the revision asks for it, so nginx-like proxies pass each event on at once.
  return c.body(stream, 200, {
    'Content-Type': SSE_CONTENT_TYPE,
    'Cache-Control': 'no-cache',
    'X-Accel-Buffering': 'no',
  });
}
