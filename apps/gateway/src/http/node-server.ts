import { serve, type ServerType } from '@hono/node-server';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { GatewayConfig } from '../config/gateway-config.js';
import { closeConnectionsInStages } from './lingering-close.js';

export interface ListenOptions {
  port: number;
  host: string;
  http: GatewayConfig['http'];
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
export function listen(fetch: (request: Request, env: unknown) => Response | Promise<Response>, options: ListenOptions, onListening: (info: AddressInfo) => void): Server {
  const { http } = options;
  const server = serve(
    {
      fetch,
      port: options.port,
      hostname: options.host,
      serverOptions: {
        headersTimeout: http.headersTimeoutMs,
        // Node requires the request timeout to be at least the headers timeout.
        requestTimeout: Math.max(http.requestTimeoutMs, http.headersTimeoutMs),
        keepAliveTimeout: http.keepAliveTimeoutMs,
        connectionsCheckingInterval: TIMEOUT_CHECK_MS,
      },
    },
    onListening,
  ) as ServerType as Server;
  server.maxConnections = http.maxConnections;
  closeConnectionsInStages(server);
  return server;
}
