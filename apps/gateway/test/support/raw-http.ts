import { request } from 'node:http';

export interface RawReply {
  status: number;
  contentType: string;
  body: string;
}

export interface RawRequest {
  method?: string;
  headers?: Record<string, string>;
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
      response.on('end', () => resolve({ status: response.statusCode ?? 0, contentType: response.headers['content-type'] ?? '', body: text }));
    });
    req.on('error', reject);
    for (const chunk of chunks ?? []) req.write(chunk);
    req.end(body);
  });
}
