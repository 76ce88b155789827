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
export function rawRequest(url: string, { method = 'GET', headers = {}, body, chunks, localAddress }: RawRequest = {}): Promise<RawReply> {
  const allHeaders = { ...headers, ...(body !== undefined && { 'Content-Length': String(Buffer.byteLength(body)) }) };
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: allHeaders, localAddress, agent: false }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, contentType: response.headers['content-type'] ?? '', body: text, headers: response.headers }));
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
    socket.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' ? resolve(received) : reject(error)));
    socket.on('close', () => resolve(received));
    socket.write(`${head}\r\n\r\n${body}`, 'latin1');
  });
}
