import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { MiddlewareHandler } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { Logger } from './logger.js';
import { runAsRequest } from './request-id.js';

/** A caller's own id is kept when it is short and plain, so it cannot forge log structure. */
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * What the /mcp fast path needs of the request context: the
 * middleware's work, for a request served on the Node objects.
 */
export interface NodeRequestContext {
  /**
   * Runs `serve` inside the request's context (the caller's sane
   * `X-Request-Id`, else a new one) and writes the access line once it
   * settles with the reply's status.
   */
  around(
    offeredId: string | undefined,
    method: string,
    path: string,
    serve: (requestId: string) => Promise<number>,
  ): Promise<void>;
}

/** The request-context middleware, with the same work for the Node fast path as `node`. */
export type RequestContextMiddleware = MiddlewareHandler & { readonly node: NodeRequestContext };

/**
 * Gives every request an id (the caller's `X-Request-Id` when sane, else a
 * new UUID), echoes it, runs the request inside it so every log line written
 * meanwhile carries it, and writes one access line when the response is ready.
 */
export function requestContext(log: Logger): RequestContextMiddleware {
  const accessLine = (method: string, path: string, status: number, started: number) =>
    log.info({ method, path, status, ms: Math.round((performance.now() - started) * 100) / 100 }, 'request');
  const middleware = createMiddleware(async (c, next) => {
    const requestId = requestIdFrom(c.req.header('X-Request-Id'));
    const started = performance.now();
    c.header('X-Request-Id', requestId);
    await runAsRequest(requestId, async () => {
      await next();
      accessLine(c.req.method, c.req.path, c.res.status, started);
    });
  });
  const node: NodeRequestContext = {
    around: (offeredId, method, path, serve) => {
      const requestId = requestIdFrom(offeredId);
      const started = performance.now();
      return runAsRequest(requestId, async () => accessLine(method, path, await serve(requestId), started));
    },
  };
  return Object.assign(middleware, { node });
}

function requestIdFrom(offered: string | undefined): string {
  return offered && SAFE_REQUEST_ID.test(offered) ? offered : randomUUID();
}
