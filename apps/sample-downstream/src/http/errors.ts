import type { ErrorHandler, NotFoundHandler } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

/** An expected failure with the status and JSON body the client should see. */
export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: string,
    message: string,
    readonly issues?: ReadonlyArray<{ path: string; message: string }>,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const notFound = (what: string): ApiError => new ApiError(404, 'not_found', `${what} was not found`);

export const handleError: ErrorHandler = (err, c) => {
  if (err instanceof ApiError) {
    return c.json({ error: err.code, message: err.message, ...(err.issues && { issues: err.issues }) }, err.status);
  }
  // Unexpected: log the cause, tell the client nothing about internals.
  console.error(err);
  return c.json({ error: 'internal_error', message: 'Internal server error' }, 500);
};

export const handleNotFound: NotFoundHandler = (c) =>
  c.json({ error: 'not_found', message: `No route for ${c.req.method} ${c.req.path}` }, 404);
