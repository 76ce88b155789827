import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';

/** A reply under construction; Hono's Response is one, and so is a `NodeReply`. */
export interface McpResponse {
  readonly status: number;
  readonly headers: { set(name: string, value: string): void };
}

/**
 * What the /mcp handlers use of an exchange: the request's headers and Node
 * bindings, and the reply's headers and body. Hono's Context has all of it
 * (the handlers run on it for the app's other callers, `app.request` in
 * tests among them); `NodeMcpExchange` has it without building WHATWG
 * Request, Headers and Response objects, for the hot path (see mcp-fast-path.ts).
 */
export interface McpExchange<R extends McpResponse = McpResponse> {
  readonly req: {
    header(name: string): string | undefined;
    readonly method: string;
    /** Off Node only (the body read from the standard Request). */
    text(): Promise<string>;
    readonly raw: { readonly signal: AbortSignal; readonly headers: { forEach(each: (value: string, name: string) => void): void } };
  };
  /** `{ incoming, outgoing }` on Node. */
  readonly env: unknown;
  header(name: string, value: string): void;
  body(data: string | ReadableStream<Uint8Array> | null, status?: number, headers?: Record<string, string>): R;
  json(object: unknown, status?: number): R;
  get(key: 'resourceMetadataUrl'): string | undefined;
}

/** Reply headers by lower-case name, as Hono's Headers hold them. */
export class ReplyHeaders {
  readonly byName = new Map<string, string>();

  set(name: string, value: string): void {
    this.byName.set(name.toLowerCase(), value);
  }

  get(name: string): string | undefined {
    return this.byName.get(name.toLowerCase());
  }
}

/** A reply the Node exchange writes once the handler returns it. */
export class NodeReply implements McpResponse {
  constructor(
    readonly status: number,
    readonly headers: ReplyHeaders,
    readonly body: string | ReadableStream<Uint8Array> | null,
  ) {}
}

/**
 * One POST /mcp served on the Node objects directly. Replies are written as
 * the Hono adapter would write the Response it builds: lower-case header
 * names in sorted order, a Content-Length for a text body, a stream piped.
 */
export class NodeMcpExchange implements McpExchange<NodeReply> {
  readonly env: { incoming: IncomingMessage; outgoing: ServerResponse };
  readonly req: McpExchange['req'];
  readonly #prepared = new ReplyHeaders();

  constructor(
    incoming: IncomingMessage,
    outgoing: ServerResponse,
    readonly resourceMetadataUrl: string | undefined,
  ) {
    this.env = { incoming, outgoing };
    this.req = {
      header: (name) => headerOf(incoming, name),
      method: incoming.method ?? 'POST',
      text: () => Promise.reject(new Error('the Node exchange reads its body from the incoming message')),
      get raw(): never {
        throw new Error('the Node exchange has no WHATWG Request');
      },
    };
  }

  header(name: string, value: string): void {
    this.#prepared.set(name, value);
  }

  body(data: string | ReadableStream<Uint8Array> | null, status = 200, headers?: Record<string, string>): NodeReply {
    const all = new ReplyHeaders();
    for (const [name, value] of this.#prepared.byName) all.set(name, value);
    for (const name in headers) all.set(name, headers[name]!);
    return new NodeReply(status, all, data);
  }

  json(object: unknown, status = 200): NodeReply {
    return this.body(JSON.stringify(object), status, { 'content-type': 'application/json' });
  }

  get(_key: 'resourceMetadataUrl'): string | undefined {
    return this.resourceMetadataUrl;
  }
}

/**
 * Headers Node keeps only the first of (and `set-cookie`, which it keeps as
 * a list): for these, as Hono's adapter does, every value the client sent
 * is read, joined with `, `.
 */
const KEPT_ONCE_BY_NODE: ReadonlySet<string> = new Set([
  'age', 'authorization', 'content-length', 'content-type', 'etag', 'expires', 'from', 'host', 'if-modified-since',
  'if-unmodified-since', 'last-modified', 'location', 'max-forwards', 'proxy-authorization', 'referer', 'retry-after',
  'server', 'user-agent', 'set-cookie',
]);

/** A request header as Hono's adapter reads it on HTTP/1 (Node has already trimmed each value). */
function headerOf(incoming: IncomingMessage, name: string): string | undefined {
  const lower = name.toLowerCase();
  if (!KEPT_ONCE_BY_NODE.has(lower)) {
    const value = incoming.headers[lower];
    return typeof value === 'string' ? value : undefined;
  }
  const raw = incoming.rawHeaders;
  let joined: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const rawName = raw[i]!;
    if (rawName.length === lower.length && rawName.toLowerCase() === lower) joined = joined === undefined ? raw[i + 1]! : `${joined}, ${raw[i + 1]!}`;
  }
  return joined;
}

/** Writes a reply; resolves once its body is handed to the socket (a stream: once it ends). */
export async function writeNodeReply(outgoing: ServerResponse, reply: NodeReply): Promise<void> {
  const { byName } = reply.headers;
  const headers: Record<string, string | number> = {};
  for (const name of [...byName.keys()].sort()) headers[name] = byName.get(name)!;
  const { body } = reply;
  if (body === null) {
    outgoing.writeHead(reply.status, headers);
    outgoing.end();
    return;
  }
  if (typeof body === 'string') {
    headers['content-length'] = Buffer.byteLength(body);
    outgoing.writeHead(reply.status, headers);
    outgoing.end(body);
    return;
  }
  outgoing.writeHead(reply.status, headers);
  outgoing.flushHeaders();
  await pipeStream(body, outgoing);
}

/** A web stream onto the response, cancelled when the client goes away first. */
function pipeStream(body: ReadableStream<Uint8Array>, outgoing: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const source = Readable.fromWeb(body as WebReadableStream<Uint8Array>);
    const done = () => resolve();
    source.once('error', () => {
      outgoing.destroy();
      done();
    });
    outgoing.once('close', () => {
      if (!source.destroyed) source.destroy();
      done();
    });
    source.pipe(outgoing);
    source.once('end', done);
  });
}
