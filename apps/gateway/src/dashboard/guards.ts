import type { TokenService } from '@tollgate/gateway-core';
import { csrf } from 'hono/csrf';
import { createMiddleware } from 'hono/factory';
import { HTTPException } from 'hono/http-exception';
import { jsonBodyLimit } from '../http/json-body.js';
import { csrfTokenMatches, type CsrfTokens } from './csrf.js';
import type { DashboardContext, DashboardEnv } from './env.js';
import { readSession, redirectToSignIn } from './session.js';

/** Far above any agent form; the dashboard never needs to buffer more. */
const MAX_FORM_BYTES = 256 * 1024;

/** Every form post is capped before its body is parsed. */
export const formBodyLimit = jsonBodyLimit(MAX_FORM_BYTES);

/**
 * The sign-in form holds a key and a form token; it is read before anyone
 * is signed in, so it is capped small: many anonymous uploads hold little memory.
 */
export const signInBodyLimit = jsonBodyLimit(16 * 1024);

/**
 * hono/csrf: a change must come from a page of this origin (Sec-Fetch-Site
 * same-origin, or an Origin equal to the request's). Not enough alone (it
 * trusts what a non-browser client says), hence the tokens as well.
 */
export const sameOrigin = csrf();

/**
 * Parses the form and lets it through (as `form`) only when its `_csrf`
 * field matches the token expected; `refuse` answers otherwise. The
 * sign-in form and the signed-in pages expect different tokens.
 */
export function requireFormToken(
  expected: (c: DashboardContext) => string | undefined,
  refuse: (c: DashboardContext) => Response | Promise<Response>,
) {
  return createMiddleware<DashboardEnv>(async (c, next) => {
    const form = await c.req.parseBody({ all: true });
    if (!csrfTokenMatches(form._csrf, expected(c))) return refuse(c);
    c.set('form', form);
    await next();
  });
}

/** Every page past sign-in: a valid admin session, else the sign-in page. */
export function requireSession(tokens: TokenService, csrfTokens: CsrfTokens) {
  return createMiddleware<DashboardEnv>(async (c, next) => {
    const session = await readSession(c, tokens);
    if (!session) return redirectToSignIn(c);
    c.set('session', session);
    c.set('csrfToken', csrfTokens.forSession(session.tokenId));
    await next();
  });
}

/** A change made while signed in must carry the session's CSRF token. */
export const requireSessionToken = requireFormToken(
  (c) => c.get('csrfToken'),
  () => {
    throw new HTTPException(403, {
      message:
        'The form was not sent from this dashboard session (CSRF token missing or wrong). Reload the page and ' +
        'try again.',
    });
  },
);
