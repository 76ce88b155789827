import type { JsonRpcNotification, JsonRpcResponse } from './jsonrpc.js';
import { knownStructuredJson, structuredContentIsObject } from './tool-result.js';

/**
 * Server-Sent Events framing of MCP responses (contract 4.3): one `message` event
 * per JSON-RPC message. JSON.stringify escapes CR and LF inside strings, so
 * the JSON always fits on the single `data:` line and cannot end the event
 * early or inject another one.
 */
export function sseMessage(message: JsonRpcResponse | JsonRpcNotification, eventId?: string): string {
  const id = eventId === undefined ? '' : `id: ${eventId}\n`;
  return `${id}event: message\ndata: ${toolResultJson(message) ?? JSON.stringify(message)}\n\n`;
}

/**
 * `JSON.stringify(message)`, written around the structuredContent's JSON
 * text when a tools/call result knows it (see `buildToolCallResult`): the
 * answer is then not serialized a second time. Only for the shape
 * `{jsonrpc, id, result: {content, structuredContent, ...rest}}`, keys in that
 * order (`rest`: what a stateless era's result adds after them, `resultType`
 * and `_meta`), so the text is the very one JSON.stringify gives; undefined otherwise.
 */
function toolResultJson(message: JsonRpcResponse | JsonRpcNotification): string | undefined {
  if (!('result' in message)) return undefined;
  const { result, id } = message as { result: unknown; id: unknown };
  if (
    typeof result !== 'object' ||
    result === null ||
    (typeof id !== 'string' && typeof id !== 'number' && id !== null)
  )
    return undefined;
  // Not read through `result.structuredContent`, which would parse a cached answer's text
  // (buildToolCallResultFromJson).
  if (!structuredContentIsObject(result)) return undefined;
  const { content } = result as { content?: unknown };
  const structured = knownStructuredJson(result);
  const resultKeys = Object.keys(result);
  if (structured === undefined || !keysAre(message, MESSAGE_KEYS) || !startsWith(resultKeys, RESULT_KEYS))
    return undefined;
  let rest = '';
  for (const key of resultKeys.slice(RESULT_KEYS.length)) {
    // As JSON.stringify does: a member whose value has no JSON form (undefined, a function) is left out.
    const value = JSON.stringify((result as Record<string, unknown>)[key]);
    if (value !== undefined) rest += `,${JSON.stringify(key)}:${value}`;
  }
  return (
    `{"jsonrpc":${JSON.stringify(message.jsonrpc)},"id":${JSON.stringify(id)},` +
    `"result":{"content":${JSON.stringify(content)},"structuredContent":${structured}${rest}}}`
  );
}

const MESSAGE_KEYS = ['jsonrpc', 'id', 'result'];
const RESULT_KEYS = ['content', 'structuredContent'];

function keysAre(object: object, expected: readonly string[]): boolean {
  const keys = Object.keys(object);
  return keys.length === expected.length && startsWith(keys, expected);
}

function startsWith(keys: readonly string[], expected: readonly string[]): boolean {
  return keys.length >= expected.length && expected.every((key, i) => keys[i] === key);
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
