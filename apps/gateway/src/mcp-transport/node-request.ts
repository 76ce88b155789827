import { TransportError } from '@tollgate/gateway-core/errors';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpExchange } from './mcp-exchange.js';

/**
 * The hot path reads the Node request directly: asking Hono's adapter for
 * the body or the abort signal makes it build a full WHATWG Request (headers
 * copied, a web stream over the socket, a DOMException when it closes), which
 * costs more than the rest of a small call. Off Node (app.request in unit
 * tests) the standard Request is used instead.
 */
interface NodeBindings {
  incoming?: IncomingMessage;
  outgoing?: ServerResponse;
}

const utf8 = new TextDecoder();

/**
 * Refuses (`body-too-large`) a request whose declared length passes
 * `maxBytes`, before anything is read.
 */
export function checkDeclaredLength(c: McpExchange, maxBytes: number): void {
  const declared =
    (c.env as NodeBindings | undefined)?.incoming?.headers['content-length'] ?? c.req.header('Content-Length');
  if (Number(declared ?? 0) > maxBytes) throw tooLarge(maxBytes);
}

/** Whether the request announces a body (a length above zero, or chunked), read or not. */
export function hasBody(c: McpExchange): boolean {
  const length = c.req.header('Content-Length');
  return length === undefined ? c.req.header('Transfer-Encoding') !== undefined : Number(length) > 0;
}

/**
 * Counts a body against a bound while it arrives (see BodyAdmission): given
 * the bytes the body may take, returns the release. Throws to refuse it.
 */
export type AdmitBody = (bytes: number) => () => void;

/**
 * The body as UTF-8 text, refused (`body-too-large`) as soon as the declared
 * or streamed size passes `maxBytes`; `incomplete-body` when the client
 * leaves before sending all of it. `admit`, given, counts it (at its declared
 * length, or `maxBytes` when chunked) until it is read or abandoned.
 */
export function readBodyText(c: McpExchange, maxBytes: number, admit?: AdmitBody): Promise<string> {
  const incoming = (c.env as NodeBindings | undefined)?.incoming;
  if (incoming === undefined) return readRequestText(c, maxBytes);
  try {
    checkDeclaredLength(c, maxBytes);
    const declared = incoming.headers['content-length'];
    const release = admit?.(declared === undefined ? maxBytes : Number(declared));
    return readLimited(incoming, maxBytes, release);
  } catch (error) {
    return Promise.reject(error);
  }
}

/** Off Node: the standard Request's body. */
async function readRequestText(c: McpExchange, maxBytes: number): Promise<string> {
  const text = await c.req.text();
  if (Buffer.byteLength(text) > maxBytes) throw tooLarge(maxBytes);
  return text;
}

function tooLarge(maxBytes: number): TransportError {
  return new TransportError('body-too-large', `Request body is larger than ${maxBytes} bytes`);
}

/**
 * Plain 'data'/'end' events rather than `for await`: the async iterator costs
 * a few microtasks and ticks per chunk, on every request. Past `maxBytes` the
 * rest of the body is left unread (the reply then closes the connection).
 * `release` is called once the read is over, whichever way.
 */
function readLimited(incoming: IncomingMessage, maxBytes: number, release?: () => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) return void chunks.push(chunk);
      stop();
      incoming.pause();
      reject(tooLarge(maxBytes));
    };
    // TextDecoder, like Request.text(): a leading byte order mark is dropped (RFC 8259 8.1).
    // A small body is one chunk: decoded as it is, not copied first.
    const onEnd = () => (stop(), resolve(utf8.decode(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size))));
    // Before its end, the stream fails or closes only when the client went away ('aborted').
    const onError = (error?: Error) => (
      stop(),
      reject(
        new TransportError('incomplete-body', 'The connection closed before the request body was complete', {
          cause: error,
        }),
      )
    );
    const onClose = () => onError();
    const stop = () => {
      incoming.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
      release?.();
    };
    incoming.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}

/** Aborts when the client goes away before the response is complete (to stop a downstream call nobody waits for). */
export function clientGoneSignal(c: McpExchange): AbortSignal {
  const outgoing = (c.env as NodeBindings | undefined)?.outgoing;
  if (outgoing === undefined) return c.req.raw.signal;
  const controller = new AbortController();
  outgoing.once('close', () => {
    if (!outgoing.writableFinished) controller.abort();
  });
  return controller.signal;
}

/** The request headers by lower-case name, without building a WHATWG Headers object. */
export function requestHeaders(c: McpExchange): Readonly<Record<string, string | string[] | undefined>> {
  const incoming = (c.env as NodeBindings | undefined)?.incoming;
  if (incoming !== undefined) return incoming.headers;
  const headers: Record<string, string> = {};
  c.req.raw.headers.forEach((value, name) => (headers[name] = value));
  return headers;
}
