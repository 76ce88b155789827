import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface BearerProxy {
  /** The proxy's origin, e.g. `http://127.0.0.1:41234`; a client uses `${url}/mcp`. */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * A loopback HTTP proxy for clients that cannot be given a header (the
 * conformance CLI, say): every request goes to the same path on `target` with
 * `Authorization: Bearer <token>` added, everything else as the client sent
 * it, Host and Origin included, so the gateway judges the request as it came.
 * The answer streams back untouched: status, headers (Mcp-Session-Id,
 * Content-Type of an SSE stream, ...) and body chunk by chunk as they arrive.
 * A client that hangs up aborts the forwarded request.
 */
export async function startBearerProxy(target: string, token: string): Promise<BearerProxy> {
  const upstream = new URL(target);
  const server: Server = createServer((req, res) => {
    const headers = { ...withoutHopByHop(req), authorization: `Bearer ${token}` };
    const forwarded = request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, answer.rawHeaders);
        res.flushHeaders();
        answer.pipe(res);
        answer.on('error', () => res.destroy());
      },
    );
    forwarded.on('error', (error) => {
      if (res.headersSent) res.destroy();
      else res.writeHead(502, { 'Content-Type': 'text/plain' }).end(`bearer proxy: ${error.message}`);
    });
    res.on('close', () => {
      if (!res.writableFinished) forwarded.destroy();
    });
    req.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** The request's headers without those that describe this one connection (RFC 9110 7.6.1). */
function withoutHopByHop(req: IncomingMessage): Record<string, string | string[]> {
  const hopByHop = new Set([
    'connection',
    'keep-alive',
    'proxy-connection',
    'te',
    'trailer',
    'upgrade',
    'authorization',
  ]);
  for (const name of (req.headers.connection ?? '').split(',')) hopByHop.add(name.trim().toLowerCase());
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(req.headers))
    if (value !== undefined && !hopByHop.has(name)) headers[name] = value;
  return headers;
}
