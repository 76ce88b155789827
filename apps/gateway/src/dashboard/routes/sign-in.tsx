import type { TokenService } from '@tollgate/gateway-core';
import { NotFoundError, TooManyAttemptsError } from '@tollgate/gateway-core/errors';
import { Hono, type Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { GatewayConfig } from '../../config/gateway-config.js';
import type { AdminSignIn } from '../../http/admin-sign-in.js';
import { isLoopbackHost, isLoopbackRequest } from '../../http/loopback.js';
import { randomCsrfValue } from '../csrf.js';
import type { DashboardContext, DashboardEnv } from '../env.js';
import { requireFormToken, sameOrigin, signInBodyLimit } from '../guards.js';
import { readSession, SESSION_MAX_DAYS, setSignInCookie, signInCookie, startSession } from '../session.js';
import { SignInPage } from '../views/sign-in.js';

export interface SignInDeps {
  config: Pick<GatewayConfig, 'development' | 'admin'>;
  tokens: TokenService;
  /** Compares the key, throttled per client address (shared with POST /auth/admin/token). */
  adminSignIn: AdminSignIn;
}

/** Signing in: the only pages reachable without a session, so each guards itself. */
export function signInPages(deps: SignInDeps): Hono<DashboardEnv> {
  const app = new Hono<DashboardEnv>();
  // The double submit: the form must echo the value of its short-lived cookie.
  const formToken = requireFormToken(signInCookie, (c) =>
    signInForm(deps, c, 403, 'The sign-in form expired. Please try again.'),
  );
  app.get('/sign-in', async (c) =>
    (await readSession(c, deps.tokens)) ? c.redirect('/dashboard', 303) : signInForm(deps, c),
  );
  app.post('/sign-in', signInBodyLimit, sameOrigin, formToken, (c) => signInWithKey(deps, c));
  app.post('/sign-in/dev', signInBodyLimit, devSignInOnly(deps), sameOrigin, formToken, (c) => signIn(deps, c));
  return app;
}

function signInForm(deps: SignInDeps, c: Context, status: ContentfulStatusCode = 200, error?: string) {
  const csrfValue = randomCsrfValue();
  setSignInCookie(c, csrfValue);
  const keySignIn = deps.config.admin.apiKey !== undefined;
  return c.html(
    <SignInPage
      csrfValue={csrfValue}
      keySignIn={keySignIn}
      devSignIn={devSignInAllowed(deps, c)}
      {...(error ? { error } : {})}
    />,
    status,
  );
}

// A dev sign-in must also be addressed to a loopback name: a
// DNS-rebound page reaches 127.0.0.1 under its own host name.
function devSignInAllowed(deps: SignInDeps, c: Context): boolean {
  return deps.config.development && isLoopbackRequest(c) && isLoopbackHost(c.req.header('Host') ?? '');
}

/** Outside development mode, or from another machine, the dev sign-in does not exist. */
function devSignInOnly(deps: SignInDeps) {
  return createMiddleware<DashboardEnv>(async (c, next) => {
    if (!devSignInAllowed(deps, c)) throw new NotFoundError('Not found');
    await next();
  });
}

async function signInWithKey(deps: SignInDeps, c: DashboardContext) {
  const configured = deps.config.admin.apiKey;
  const presented = c.get('form').apiKey;
  if (configured === undefined) return signInForm(deps, c, 401, 'That is not the admin API key.');
  let matches: boolean;
  try {
    matches = await deps.adminSignIn.verify(c, presented, configured, 'dashboard');
  } catch (error) {
    if (!(error instanceof TooManyAttemptsError)) throw error;
    const seconds = error.data.retryAfterSeconds;
    c.header('Retry-After', String(seconds));
    return signInForm(
      deps,
      c,
      429,
      `Too many failed sign-ins from this address. Try again in ${seconds === 1 ? '1 second' : `${seconds} seconds`}.`,
    );
  }
  if (!matches) return signInForm(deps, c, 401, 'That is not the admin API key.');
  return signIn(deps, c);
}

/** The session is an admin token, cut to a browser session's length. */
async function signIn(deps: SignInDeps, c: DashboardContext) {
  const expiresInDays = Math.min(deps.config.admin.tokenExpiryDays, SESSION_MAX_DAYS);
  startSession(c, await deps.tokens.issueAdminToken({ expiresInDays }));
  return c.redirect('/dashboard', 303);
}
