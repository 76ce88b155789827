import { InvalidInputError } from '@tollgate/gateway-core';
import type { Context } from 'hono';
import type { z } from 'zod';

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
