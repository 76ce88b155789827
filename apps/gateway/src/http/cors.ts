import type { MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import { checkOrigin, isAllowedOrigin, type OriginPolicy } from './request-guards.js';

/**
 * What a browser page may send to /mcp: the Streamable HTTP methods and headers (MCP 2025-11-25), and the
 * request headers 2026-07-28 requires (`Mcp-Method`, `Mcp-Name`; a downstream's `Mcp-Param-*` are not listed).
 */
export const MCP_CORS = {
  allowMethods: ['POST', 'GET', 'DELETE', 'OPTIONS'],
  allowHeaders: [
    'Authorization',
    'Content-Type',
    'Accept',
    'Mcp-Session-Id',
    'MCP-Protocol-Version',
    'Last-Event-ID',
    'Mcp-Method',
    'Mcp-Name',
  ],
  /** The session id a client must send back, and the reason of a 401. */
  exposeHeaders: ['Mcp-Session-Id', 'WWW-Authenticate'],
  /** How long a browser may reuse a preflight's answer. */
  maxAgeSeconds: 600,
} as const;

/**
 * CORS for `/mcp`, so browser clients on the origins the origin guard lets
 * through (listed in `Gw:Http:AllowedOrigins`, or loopback) can read its
 * answers. Mounted before the guard and the route:
 * - a preflight (`OPTIONS` with `Origin`) is judged by the guard's own rule
 *   (a refused Origin or Host is 403) and otherwise answered 204 here, so it
 *   never reaches the route, which has no OPTIONS;
 * - an actual request from an allowed origin gets `Access-Control-Allow-Origin`
 *   and `Access-Control-Expose-Headers` whatever the answer, refusals and
 *   errors included (the headers set before `next()` are kept on the
 *   response that replaces them);
 * - a request without `Origin` (not from a browser page) is left alone.
 * No `Access-Control-Allow-Credentials`: the credential is a bearer token the
 * page sends itself, never a cookie.
 */
export function mcpCors(policy: OriginPolicy): MiddlewareHandler {
  const addHeaders = cors({
    origin: (origin) => (isAllowedOrigin(origin, policy) ? origin : null),
    allowMethods: [...MCP_CORS.allowMethods],
    allowHeaders: [...MCP_CORS.allowHeaders],
    exposeHeaders: [...MCP_CORS.exposeHeaders],
    maxAge: MCP_CORS.maxAgeSeconds,
  });
  return async (c, next) => {
    if (c.req.header('Origin') === undefined) return next();
    if (c.req.method === 'OPTIONS') checkOrigin(c, policy);
    return addHeaders(c, next);
  };
}
