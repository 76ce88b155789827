import type { Context } from 'hono';
import type { z } from 'zod';
import { ApiError } from './errors.js';

/** Parses request input with the same zod schema the tool advertises; 400 with the issues otherwise. */
export function parseInput<S extends z.ZodType>(
  schema: S,
  value: unknown,
  where: 'route' | 'query' | 'body',
): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
  throw new ApiError(400, 'invalid_request', `Invalid ${where} input`, issues);
}

export async function readJson(c: Context): Promise<unknown> {
  try {
    return await c.req.json();
  } catch {
    throw new ApiError(400, 'invalid_request', 'Request body must be valid JSON');
  }
}
