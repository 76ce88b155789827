import type { DashboardContext } from './env.js';

/**
 * Who makes a change from the dashboard: the signed-in session, named in the audit trail by the service that makes it.
 */
export function actor(c: DashboardContext): string {
  return c.get('session').actor;
}
