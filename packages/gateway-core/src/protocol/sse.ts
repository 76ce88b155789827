import type { JsonRpcNotification, JsonRpcResponse } from './jsonrpc.js';

/**
 * Server-Sent Events framing of MCP responses (contract 4.3): one `message` event
 * per JSON-RPC message. JSON.stringify escapes CR and LF inside strings, so
 * the JSON always fits on the single `data:` line and cannot end the event
 * early or inject another one.
 */
export function sseMessage(message: JsonRpcResponse | JsonRpcNotification, eventId?: string): string {
  const id = eventId === undefined ? '' : `id: ${eventId}\n`;
  return `${id}event: message\ndata: ${JSON.stringify(message)}\n\n`;
}

/**
 * The first event of a resumable stream (MCP 2025-11-25): its id, so a
 * client that loses the stream can resume from it with `Last-Event-ID`, an
 * empty `data`, and how long to wait before reconnecting.
 */
export function ssePriming(eventId: string, retryMs: number): string {
  return `id: ${eventId}\nretry: ${retryMs}\ndata: \n\n`;
}

/**
 * A comment frame: ignored by SSE parsers, but it moves bytes so proxies and
 * load balancers do not close a stream that waits on a slow tool call.
 */
export const SSE_KEEP_ALIVE = ': keep-alive\n\n';

export const SSE_CONTENT_TYPE = 'text/event-stream';
