import type { AuditEvent } from '@tollgate/gateway-core';
import type { DashboardContext } from './env.js';

/*
 * The audit events of changes made from the dashboard, shaped as the
 * management API's (routes/management.ts, routes/tools.ts) with the signed-in
 * session as the actor. Each page hands its event to `deps.recordAudit`
 * itself, so `grep recordAudit` lists every audited change until the
 * services that make the changes record them.
 */

export function agentChanged(c: DashboardContext, outcome: `agent.${string}`, agentId: string, detail: string | null = null): AuditEvent {
  return { kind: 'management', outcome, agentId, actor: c.get('session').actor, detail };
}

export function toolsRefreshed(c: DashboardContext, toolCount: number): AuditEvent {
  return { kind: 'management', outcome: 'tools.refreshed', actor: c.get('session').actor, detail: `${toolCount} tools` };
}
