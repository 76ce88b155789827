import type { Context } from 'hono';
import type { FormBody } from './agent-form.js';
import type { DashboardSession } from './session.js';

/**
 * What the guards in front of the pages leave on the context. The sign-in
 * pages run before the session guard, so they must not read `session` or
 * `csrfToken`; every page after it can rely on all three.
 */
export type DashboardEnv = { Variables: { session: DashboardSession; csrfToken: string; form: FormBody } };
export type DashboardContext = Context<DashboardEnv>;
