import { ForbiddenError, UnauthorizedError } from '@tollgate/gateway-core/errors';
import type { IncomingMessage } from 'node:http';
import { isLoopbackHost } from './loopback.js';

export interface OriginPolicy {
  /** Exact origins (`https://app.example.com`) allowed besides loopback ones. */
  allowedOrigins: readonly string[];
  /** Host header values allowed; empty = any, unless the gateway listens on loopback only. */
  allowedHosts: readonly string[];
  listensOnLoopbackOnly: boolean;
}

/** The request as the guards read it: Hono's Context, or the /mcp fast path's exchange. */
interface GuardedRequest {
  readonly req: { header(name: string): string | undefined };
  readonly env: unknown;
}

/**
 * Stops DNS rebinding and cross-site use from browsers (the MCP transport
 * requires servers to validate Origin). A request from a page must come from
 * a loopback origin or an allowed one; the Host must be an allowed one, and a
 * gateway listening on loopback only answers loopback host names.
 */
export function checkOrigin(c: GuardedRequest, policy: OriginPolicy): void {
  const origin = c.req.header('Origin');
  if (origin !== undefined && origin !== 'null' && !isAllowedOrigin(origin, policy)) {
    throw new ForbiddenError(`Origin ${JSON.stringify(origin.slice(0, 200))} is not allowed`);
  }
  if (origin === 'null') throw new ForbiddenError('Opaque origins are not allowed');
  const host = c.req.header('Host') ?? '';
  if (policy.allowedHosts.length > 0) {
    if (!policy.allowedHosts.some((allowed) => allowed.toLowerCase() === host.toLowerCase())) {
      throw new ForbiddenError(`Host ${JSON.stringify(host.slice(0, 200))} is not allowed`);
    }
  } else if (policy.listensOnLoopbackOnly && !isLoopbackHost(host)) {
    throw new ForbiddenError(`Host ${JSON.stringify(host.slice(0, 200))} is not allowed on a loopback-only gateway`);
  }
}

/** Whether a browser page on `origin` may call the gateway: a listed origin, or any http(s) loopback one. */
export function isAllowedOrigin(origin: string, policy: OriginPolicy): boolean {
  if (policy.allowedOrigins.includes(origin)) return true;
  try {
    const url = new URL(origin);
    return (url.protocol === 'http:' || url.protocol === 'https:') && isLoopbackHost(url.host);
  } catch {
    return false;
  }
}

/**
 * Node keeps only the first of repeated Authorization headers; a request
 * carrying two is ambiguous (which credential did the client mean?), so it
 * is refused rather than silently judged by the first.
 */
export function checkSingleAuthorization(c: GuardedRequest): void {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  const raw = incoming?.rawHeaders ?? [];
  let count = 0;
  for (let i = 0; i < raw.length; i += 2)
    if (raw[i]!.length === 13 && raw[i]!.toLowerCase() === 'authorization') count += 1;
  if (count > 1) throw new UnauthorizedError('More than one Authorization header', 'malformed');
}
