import { request, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';

export interface RawReply {
  status: number;
  contentType: string;
  body: string;
  headers: IncomingHttpHeaders;
}

export interface RawRequest {
  method?: string;
  /** An array value sends the header once per item. */
  headers?: Record<string, string | string[]>;
  /** Sent with Content-Length; `chunks` instead sends it chunked, with no length announced. */
  body?: string;
  chunks?: string[];
  /** The local address the connection leaves from (a non-loopback one makes the gateway see a remote peer). */
  localAddress?: string;
}

/**
 * One request on its own TCP connection (no pooling), for what fetch
 * cannot do: pick the source address, or send a body the server refuses
 * unread without leaving a half-used socket in a shared pool.
 */
export function rawRequest(
  url: string,
  { method = 'GET', headers = {}, body, chunks, localAddress }: RawRequest = {},
): Promise<RawReply> {
  const allHeaders = { ...headers, ...(body !== undefined && { 'Content-Length': String(Buffer.byteLength(body)) }) };
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: allHeaders, localAddress, agent: false }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          contentType: response.headers['content-type'] ?? '',
          body: text,
          headers: response.headers,
        }),
      );
    });
    req.on('error', reject);
    for (const chunk of chunks ?? []) req.write(chunk);
    req.end(body);
  });
}

/**
 * Writes `head` (request line and headers, CRLF-separated, without the blank
 * line) and `body` verbatim on a new connection, and returns everything the
 * server sent until it closed or went quiet. For bytes no HTTP client would
 * send, such as a bare CR inside a header value.
 */
export function rawExchange(url: string, head: string, body = '', quietMs = 1_000): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let received = '';
    socket.setEncoding('latin1');
    socket.setTimeout(quietMs, () => socket.end());
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('error', (error: NodeJS.ErrnoException) =>
      error.code === 'ECONNRESET' ? resolve(received) : reject(error),
    );
    socket.on('close', () => resolve(received));
    socket.write(`${head}\r\n\r\n${body}`, 'latin1');
  });
}

export interface RawUpload {
  /** Everything the server sent (latin1). */
  received: string;
  /** How the exchange ended: the server closed the connection (FIN, or a reset after its answer), or it went quiet for `quietMs` while still open. */
  ended: 'closed' | 'reset' | 'still-open';
}

/**
 * Writes `head` and then streams `chunks` (each sent as one chunk of a chunked
 * body when `chunked`, else verbatim) as fast as the socket takes them, until
 * the server answers or closes; then waits for the server to close. For
 * checking that an early answer is read whole, and that the connection ends
 * after it, as a client that is still uploading sees it.
 */
export function rawUpload(
  url: string,
  head: string,
  chunks: readonly string[],
  { chunked = false, quietMs = 2_000 } = {},
): Promise<RawUpload> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let received = '';
    let done = false;
    const finish = (ended: RawUpload['ended']) => {
      if (done) return;
      done = true;
      clearTimeout(quiet);
      socket.destroy();
      resolve({ received, ended });
    };
    let quiet = setTimeout(() => finish('still-open'), quietMs);
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      received += chunk;
      clearTimeout(quiet);
      quiet = setTimeout(() => finish('still-open'), quietMs);
    });
    socket.on('end', () => finish('closed'));
    socket.on('close', () => finish('closed'));
    socket.on('error', (error: NodeJS.ErrnoException) =>
      error.code === 'ECONNRESET' || error.code === 'EPIPE' ? finish('reset') : reject(error),
    );
    socket.write(`${head}\r\n\r\n`, 'latin1');
    const send = async () => {
      for (const chunk of chunks) {
        if (done || received !== '' || socket.destroyed) return;
        const framed = chunked ? `${Buffer.byteLength(chunk).toString(16)}\r\n${chunk}\r\n` : chunk;
        if (!socket.write(framed, 'latin1'))
          await new Promise((resume) => (socket.once('drain', resume), socket.once('close', resume)));
      }
      if (chunked && !done && !socket.destroyed) socket.write('0\r\n\r\n');
    };
    socket.once('connect', () => void send());
  });
}

/** An HTTP/1.1 response read off a socket: status, lower-case headers, and whether its body arrived whole. */
export function parseRawResponse(text: string): {
  status: number;
  headers: Record<string, string>;
  body: string;
  complete: boolean;
} {
  const split = text.indexOf('\r\n\r\n');
  if (split < 0) return { status: 0, headers: {}, body: '', complete: false };
  const [statusLine = '', ...lines] = text.slice(0, split).split('\r\n');
  const headers = Object.fromEntries(
    lines.map((line) => [
      line.slice(0, line.indexOf(':')).trim().toLowerCase(),
      line.slice(line.indexOf(':') + 1).trim(),
    ]),
  );
  const rest = text.slice(split + 4);
  const status = Number(statusLine.split(' ')[1]);
  if (headers['content-length'] !== undefined) {
    const length = Number(headers['content-length']);
    return { status, headers, body: rest.slice(0, length), complete: Buffer.byteLength(rest, 'latin1') >= length };
  }
  // Chunked: complete once the last chunk is there.
  let body = '';
  let at = 0;
  for (;;) {
    const lineEnd = rest.indexOf('\r\n', at);
    if (lineEnd < 0) return { status, headers, body, complete: false };
    const size = parseInt(rest.slice(at, lineEnd), 16);
    if (size === 0) return { status, headers, body, complete: true };
    body += rest.slice(lineEnd + 2, lineEnd + 2 + size);
    at = lineEnd + 2 + size + 2;
  }
}
