import { InvalidInputError } from '@tollgate/gateway-core/errors';
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { z } from 'zod';
import { problem } from './problem.js';

/** Far above any valid management or auth body (1000 tool names and scopes fit many times over). */
export const MAX_JSON_BODY_BYTES = 1024 * 1024;

/**
 * Caps what a caller can make the gateway buffer before `readJsonBody`
 * parses it: 413 as soon as Content-Length or the streamed bytes pass the
 * limit. Without it, one unauthenticated POST /auth/admin/token could hold
 * any amount of memory.
 *
 * The rest of a too-large body is never read, so the connection cannot carry
 * another request: the 413 says `Connection: close` (as /mcp's does), and Node
 * ends the connection once the answer is written. Without it the answer said
 * keep-alive and the node adapter dropped the socket anyway after draining
 * the body for 500 ms, so a keep-alive client sent its next request into a
 * closing socket. The answer is written before the close, so a client still
 * uploading reads it before its writes fail.
 */
export function jsonBodyLimit(maxBytes = MAX_JSON_BODY_BYTES): MiddlewareHandler {
  return bodyLimit({
    maxSize: maxBytes,
    onError: (c) => {
      c.header('Connection', 'close');
      return problem(c, {
        status: 413,
        title: 'Payload Too Large',
        detail: `Request body is larger than ${maxBytes} bytes`,
      });
    },
  });
}

/**
 * Reads and validates a JSON request body. An empty body counts as absent
 * (so `POST .../token` works without one); anything else must be JSON of
 * the schema's shape, or the caller gets a 400 naming each bad field.
 */
export async function readJsonBody<T extends z.ZodType>(c: Context, schema: T): Promise<z.output<T>> {
  const text = await c.req.text();
  let value: unknown;
  if (text.trim() !== '') {
    const contentType = c.req.header('Content-Type') ?? '';
    if (!/^application\/([\w.+-]+\+)?json\b/i.test(contentType)) {
      throw new InvalidInputError('Content-Type must be application/json');
    }
    try {
      value = JSON.parse(text);
    } catch {
      throw new InvalidInputError('Request body is not valid JSON');
    }
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const fields = parsed.error.issues.map((issue) => ({
      path: issue.path.length ? issue.path.join('.') : '(body)',
      message: issue.message,
    }));
    throw new InvalidInputError('Request body is invalid', fields);
  }
  return parsed.data;
}
