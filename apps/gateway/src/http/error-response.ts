import { describeError } from '@tollgate/gateway-core/errors';
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { problem } from './problem.js';
import { retryAfterHeader } from './retry-after.js';

/**
 * The one mapping from a thrown value to a management/auth HTTP response.
 * Unexpected errors become a generic 500 whose detail never echoes internals.
 */
export function errorResponse(c: Context, error: unknown): Response {
  const described = describeError(error);
  const status = described.httpStatus as ContentfulStatusCode;
  if (status === 401) c.header('WWW-Authenticate', 'Bearer');
  const retryAfter = described.expected ? retryAfterHeader((error as { data?: unknown } | null)?.data) : undefined;
  if (retryAfter !== undefined) c.header('Retry-After', retryAfter);
  const fields = (error as { fields?: { path: string; message: string }[] }).fields;
  return problem(c, {
    status,
    title: described.title,
    detail: described.detail,
    ...(fields?.length ? { errors: fields.map((field) => `${field.path}: ${field.message}`) } : {}),
  });
}
