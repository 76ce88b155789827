import { describeError } from '@tollgate/gateway-core/errors';
import type { ErrorHandler, NotFoundHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { DashboardContext, DashboardEnv } from './env.js';
import { ErrorPage } from './views/error-page.js';

/** An HTML error page; with the navigation when a session is known, so the user can go on from it. */
export function errorPage(
  c: DashboardContext,
  status: ContentfulStatusCode,
  title: string,
  detail: string,
): Response | Promise<Response> {
  const csrfToken = c.get('csrfToken');
  const session = csrfToken ? { section: null, csrfToken } : undefined;
  return c.html(<ErrorPage title={title} detail={detail} {...(session ? { session } : {})} />, status);
}

export const notFoundPage: NotFoundHandler<DashboardEnv> = (c) =>
  errorPage(c, 404, 'Not found', 'There is no dashboard page here.');

/**
 * Refusals (HTTPException) and the core's errors become error pages; only an
 * error that carries no httpStatus of its own and maps to 5xx is a bug worth
 * reporting.
 */
export function errorPageHandler(
  onUnexpectedError?: (error: unknown, path: string) => void,
): ErrorHandler<DashboardEnv> {
  return (error, c) => {
    if (error instanceof HTTPException)
      return errorPage(
        c,
        error.status as ContentfulStatusCode,
        error.status === 403 ? 'Refused' : 'Bad request',
        error.message || 'The request was refused.',
      );
    const described = describeError(error);
    if (described.httpStatus >= 500 && !(error instanceof Error && 'httpStatus' in error))
      onUnexpectedError?.(error, c.req.path);
    return errorPage(c, described.httpStatus as ContentfulStatusCode, described.title, described.detail);
  };
}
