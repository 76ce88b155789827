import { getRequestListener } from '@hono/node-server';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { GatewayConfig } from '../config/gateway-config.js';
import { closeConnectionsInStages } from './lingering-close.js';

/**
 * Serves a request on the Node objects and returns true, or returns false to leave it to the app.
 * Declared by the server that tries it, so the server needs nothing of what serves it (mcp-transport/mcp-fast-path.ts).
 */
export type FastPath = (incoming: IncomingMessage, outgoing: ServerResponse) => boolean;

export interface ListenOptions {
  port: number;
  host: string;
  http: GatewayConfig['http'];
  /** Tried first for every request: what it serves never reaches `fetch` (see mcp-transport/mcp-fast-path.ts). */
  fastPath?: FastPath;
}

/**
 * How often Node looks for requests past their header or request timeout.
 * Its default (30 s) would let a stalled request live up to 30 s past its limit.
 */
const TIMEOUT_CHECK_MS = 1_000;

/**
 * An HTTP server for `fetch` with the limits a public listener needs: a
 * client must send its headers, then its whole request, within short
 * timeouts (Node answers 408 and closes); idle keep-alive connections close;
 * connections beyond the cap are refused at accept; and connections that
 * end after an early answer close in stages (see `closeConnectionsInStages`).
 */
export function listen(
  fetch: (request: Request, env: unknown) => Response | Promise<Response>,
  options: ListenOptions,
  onListening: (info: AddressInfo) => void,
): Server {
  const server = httpServer(fetch, options);
  server.listen(options.port, options.host, () => onListening(server.address() as AddressInfo));
  return server;
}

/**
 * The server `listen` starts, not listening: a cluster worker serves the connections its primary hands it (see
 * connection-handoff.ts).
 */
export function httpServer(
  fetch: (request: Request, env: unknown) => Response | Promise<Response>,
  options: Omit<ListenOptions, 'port'>,
): Server {
  const { http, fastPath } = options;
  // What @hono/node-server's serve() builds, with the fast path in front of the app.
  const app = getRequestListener(fetch, { hostname: options.host });
  const serverOptions = {
    headersTimeout: http.headersTimeoutMs,
    // Node requires the request timeout to be at least the headers timeout.
    requestTimeout: Math.max(http.requestTimeoutMs, http.headersTimeoutMs),
    keepAliveTimeout: http.keepAliveTimeoutMs,
    connectionsCheckingInterval: TIMEOUT_CHECK_MS,
  };
  const server = createServer(
    serverOptions,
    fastPath ? (incoming, outgoing) => void (fastPath(incoming, outgoing) || app(incoming, outgoing)) : app,
  );
  server.maxConnections = http.maxConnections;
  closeConnectionsInStages(server);
  return server;
}
