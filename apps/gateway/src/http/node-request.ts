import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Context } from 'hono';

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

export class BodyTooLargeError extends Error {
  override readonly name = 'BodyTooLargeError';
}

/** The body as UTF-8 text, refused as soon as the declared or streamed size passes `maxBytes`. */
export async function readBodyText(c: Context, maxBytes: number): Promise<string> {
  const incoming = (c.env as NodeBindings | undefined)?.incoming;
  if (incoming === undefined) {
    const text = await c.req.text();
    if (Buffer.byteLength(text) > maxBytes) throw new BodyTooLargeError();
    return text;
  }
  if (Number(incoming.headers['content-length'] ?? 0) > maxBytes) throw new BodyTooLargeError();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of incoming as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw new BodyTooLargeError();
    chunks.push(chunk);
  }
  // TextDecoder, like Request.text(): a leading byte order mark is dropped (RFC 8259 8.1).
  return utf8.decode(Buffer.concat(chunks, size));
}

/** Aborts when the client goes away before the response is complete (to stop a downstream call nobody waits for). */
export function clientGoneSignal(c: Context): AbortSignal {
  const outgoing = (c.env as NodeBindings | undefined)?.outgoing;
  if (outgoing === undefined) return c.req.raw.signal;
  const controller = new AbortController();
  outgoing.once('close', () => {
    if (!outgoing.writableFinished) controller.abort();
  });
  return controller.signal;
}

/** The request headers by lower-case name, without building a WHATWG Headers object. */
export function requestHeaders(c: Context): Readonly<Record<string, string | string[] | undefined>> {
  const incoming = (c.env as NodeBindings | undefined)?.incoming;
  if (incoming !== undefined) return incoming.headers;
  const headers: Record<string, string> = {};
  c.req.raw.headers.forEach((value, name) => (headers[name] = value));
  return headers;
}
