import type { TokenService } from '@tollgate/gateway-core';
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { CookieOptions } from 'hono/utils/cookie';

/** The admin JWT of a signed-in browser. Scoped to the dashboard: no other route reads cookies. */
export const SESSION_COOKIE = 'tollgate_dashboard';
/** The sign-in form's double-submit value. */
export const SIGN_IN_COOKIE = 'tollgate_sign_in';

export const DASHBOARD_PATH = '/dashboard';
const SIGN_IN_PATH = `${DASHBOARD_PATH}/sign-in`;

/** A browser session is shorter than an API admin token: a forgotten tab should not stay signed in for months. */
export const SESSION_MAX_DAYS = 0.5;
const SIGN_IN_FORM_SECONDS = 60 * 60;

export interface DashboardSession {
  /** `dashboard:<admin token id>`: who made a change, for the audit trail. */
  actor: string;
  tokenId: string;
  expiresAt: Date;
}

/**
 * HTTPS when the request URL says so, or when a TLS-terminating proxy says
 * so in `X-Forwarded-Proto`. Trusting that header can only ADD the Secure
 * flag, which a forged header cannot turn to an attacker's advantage.
 */
export function isHttps(c: Context): boolean {
  if (new URL(c.req.url).protocol === 'https:') return true;
  const forwarded = c.req.header('X-Forwarded-Proto')?.split(',')[0]?.trim().toLowerCase();
  return forwarded === 'https';
}

function cookieOptions(c: Context, path: string, maxAgeSeconds: number): CookieOptions {
  return {
    path,
    httpOnly: true,
    sameSite: 'Strict',
    secure: isHttps(c),
    maxAge: Math.max(1, Math.floor(maxAgeSeconds)),
  };
}

/** The admin session of this request, or null: an agent token, an expired or forged one all read as none. */
export async function readSession(c: Context, tokens: TokenService): Promise<DashboardSession | null> {
  const token = getCookie(c, SESSION_COOKIE);
  if (!token) return null;
  try {
    const claims = await tokens.verifyAdminToken(token);
    return { actor: `dashboard:${claims.tokenId}`, tokenId: claims.tokenId, expiresAt: claims.expiresAt };
  } catch {
    return null;
  }
}

export function startSession(c: Context, issued: { token: string; expiresAt: string }): void {
  const seconds = (Date.parse(issued.expiresAt) - Date.now()) / 1000;
  setCookie(c, SESSION_COOKIE, issued.token, cookieOptions(c, DASHBOARD_PATH, seconds));
  deleteCookie(c, SIGN_IN_COOKIE, { path: SIGN_IN_PATH });
}

export function endSession(c: Context): void {
  deleteCookie(c, SESSION_COOKIE, { path: DASHBOARD_PATH, secure: isHttps(c), httpOnly: true, sameSite: 'Strict' });
}

export function setSignInCookie(c: Context, value: string): void {
  setCookie(c, SIGN_IN_COOKIE, value, cookieOptions(c, SIGN_IN_PATH, SIGN_IN_FORM_SECONDS));
}

export function signInCookie(c: Context): string | undefined {
  return getCookie(c, SIGN_IN_COOKIE);
}

/** Where a request without a session goes; 303 so a POST becomes a GET. */
export function redirectToSignIn(c: Context): Response {
  return c.redirect(SIGN_IN_PATH, 303);
}
