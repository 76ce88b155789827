import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { createMiddleware } from 'hono/factory';
import type { Logger } from '../logger.js';

interface RequestContext {
  requestId: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** The request id of the request being handled, for log lines (see the logger's mixin). */
export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

/** A caller's own id is kept when it is short and plain, so it cannot forge log structure. */
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Gives every request an id (the caller's `X-Request-Id` when sane, else a
 * new UUID), echoes it, runs the request inside it so every log line written
 * meanwhile carries it, and writes one access line when the response is ready.
 */
export function requestContext(log: Logger) {
  return createMiddleware(async (c, next) => {
    const offered = c.req.header('X-Request-Id');
    const requestId = offered && SAFE_REQUEST_ID.test(offered) ? offered : randomUUID();
    const started = performance.now();
    c.header('X-Request-Id', requestId);
    await storage.run({ requestId }, async () => {
      await next();
      log.info({ method: c.req.method, path: c.req.path, status: c.res.status, ms: Math.round((performance.now() - started) * 100) / 100 }, 'request');
    });
  });
}
