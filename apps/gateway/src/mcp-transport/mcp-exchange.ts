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
    readonly raw: {
      readonly signal: AbortSignal;
      readonly headers: { forEach(each: (value: string, name: string) => void): void };
    };
  };
  /** `{ incoming, outgoing }` on Node. */
  readonly env: unknown;
  header(name: string, value: string): void;
  body(data: string | ReadableStream<Uint8Array> | null, status?: number, headers?: Record<string, string>): R;
  json(object: unknown, status?: number): R;
  get(key: 'resourceMetadataUrl'): string | undefined;
}

/**
 * Reply headers by lower-case name, as Hono's Headers hold them: names and
 * values side by side in two short lists (a reply has a handful), which
 * cost less to build and copy than a Map.
 */
export class ReplyHeaders {
  constructor(
    readonly names: string[] = [],
    readonly values: string[] = [],
  ) {}

  set(name: string, value: string): void {
    const lower = lowerName(name);
    const at = this.names.indexOf(lower);
    if (at === -1) {
      this.names.push(lower);
      this.values.push(value);
    } else {
      this.values[at] = value;
    }
  }

  get(name: string): string | undefined {
    const at = this.names.indexOf(lowerName(name));
    return at === -1 ? undefined : this.values[at];
  }

  copy(): ReplyHeaders {
    return new ReplyHeaders(this.names.slice(), this.values.slice());
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
    this.req = new NodeRequestView(incoming);
  }

  header(name: string, value: string): void {
    this.#prepared.set(name, value);
  }

  body(data: string | ReadableStream<Uint8Array> | null, status = 200, headers?: Record<string, string>): NodeReply {
    const all = this.#prepared.copy();
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

/** The request side of a `NodeMcpExchange`: its methods on the prototype, not closures made per request. */
class NodeRequestView {
  constructor(readonly incoming: IncomingMessage) {}

  get method(): string {
    return this.incoming.method ?? 'POST';
  }

  header(name: string): string | undefined {
    const lower = lowerName(name);
    return KEPT_ONCE_BY_NODE.has(lower) ? joinedHeader(this.incoming, lower) : singleHeader(this.incoming, lower);
  }

  text(): Promise<string> {
    return Promise.reject(new Error('the Node exchange reads its body from the incoming message'));
  }

  get raw(): never {
    throw new Error('the Node exchange has no WHATWG Request');
  }
}

/**
 * Headers Node keeps only the first of (and `set-cookie`, which it keeps as
 * a list): for these, as Hono's adapter does, every value the client sent
 * is read, joined with `, `.
 */
const KEPT_ONCE_BY_NODE: ReadonlySet<string> = new Set([
  'age',
  'authorization',
  'content-length',
  'content-type',
  'etag',
  'expires',
  'from',
  'host',
  'if-modified-since',
  'if-unmodified-since',
  'last-modified',
  'location',
  'max-forwards',
  'proxy-authorization',
  'referer',
  'retry-after',
  'server',
  'user-agent',
  'set-cookie',
]);

/**
 * Lower-case header names by the names the handlers ask for (constants, a handful), so no lookup makes a new string.
 */
const lowerNames = new Map<string, string>();
const MAX_LOWER_NAMES = 64;

function lowerName(name: string): string {
  let lower = lowerNames.get(name);
  if (lower === undefined) {
    lower = name.toLowerCase();
    if (lowerNames.size < MAX_LOWER_NAMES) lowerNames.set(name, lower);
  }
  return lower;
}

/** A header Node keeps one value of, as Hono's adapter reads it on HTTP/1 (Node has already trimmed each value). */
function singleHeader(incoming: IncomingMessage, lower: string): string | undefined {
  const value = incoming.headers[lower];
  return typeof value === 'string' ? value : undefined;
}

/** Every value the client sent of a header Node keeps only the first of, joined with `, ` as Hono's adapter does. */
function joinedHeader(incoming: IncomingMessage, lower: string): string | undefined {
  const raw = incoming.rawHeaders;
  let joined: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const rawName = raw[i]!;
    // Most clients send the name as the handlers ask for it in lower case: no new string then.
    if (rawName === lower || (rawName.length === lower.length && rawName.toLowerCase() === lower)) {
      joined = joined === undefined ? raw[i + 1]! : `${joined}, ${raw[i + 1]!}`;
    }
  }
  return joined;
}

/**
 * Writes a reply. A text reply (or none) is handed to the socket at once and
 * nothing is returned; a stream's write returns a promise that resolves once
 * it ends. Throws (a text reply) or rejects (a stream) when writing fails.
 */
export function writeNodeReply(outgoing: ServerResponse, reply: NodeReply): Promise<void> | undefined {
  const { names, values } = reply.headers;
  const { body } = reply;
  const length = typeof body === 'string' ? String(Buffer.byteLength(body)) : undefined;
  // Names and values in one flat list (which writeHead takes), not an object with a key per header built per reply:
  // the names sorted, a text body's length in its place if set, else last.
  const headers: string[] = [];
  for (const name of names.slice().sort())
    headers.push(name, name === 'content-length' && length !== undefined ? length : values[names.indexOf(name)]!);
  if (length !== undefined && !names.includes('content-length')) headers.push('content-length', length);
  if (body === null) {
    outgoing.writeHead(reply.status, headers);
    outgoing.end();
    return;
  }
  if (typeof body === 'string') {
    outgoing.writeHead(reply.status, headers);
    outgoing.end(body);
    return;
  }
  outgoing.writeHead(reply.status, headers);
  outgoing.flushHeaders();
  return pipeStream(body, outgoing);
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
