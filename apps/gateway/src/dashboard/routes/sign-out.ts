import { Hono } from 'hono';
import type { DashboardEnv } from '../env.js';
import { endSession, redirectToSignIn } from '../session.js';

/** Mounted behind the guards: signing out is a change like any other, CSRF token included. */
export function signOutPages(): Hono<DashboardEnv> {
  const app = new Hono<DashboardEnv>();
  app.post('/sign-out', (c) => {
    endSession(c);
    return redirectToSignIn(c);
  });
  return app;
}
