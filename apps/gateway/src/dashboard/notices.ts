import type { Context } from 'hono';

/**
 * What a page says after a change redirected to it with `?done=`. One table
 * for every section: the redirect names the notice, the page only shows it.
 */
const NOTICES: Record<string, string> = {
  created: 'Agent created.',
  updated: 'Changes saved.',
  activated: 'Agent activated. Tokens issued before its deactivation stay revoked: issue a new one.',
  deactivated: 'Agent deactivated: every token it held is refused from now on.',
  'budget-reset': "Today's budget usage was reset.",
  deleted: 'Agent deleted.',
  'tools-refreshed': "Tools reloaded from the downstream's /gw/schema; every instance follows within seconds.",
};

export function notice(c: Context): string | null {
  return NOTICES[c.req.query('done') ?? ''] ?? null;
}
