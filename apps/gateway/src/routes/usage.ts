import { Hono } from 'hono';
import type { AdminEnv } from '../http/admin-guard.js';
import type { UsageReader } from '../usage/usage-reader.js';

/**
 * `GET /management/usage?from=&to=&interval=hour|day&groupBy=agent|tool|downstream|outcome&agentId=`:
 * usage over time from the counters kept as calls happen (never a scan of the audit trail).
 * A bad parameter is a 400 naming it (the reader throws InvalidInputError).
 */
export function usageRoutes(reader: UsageReader): Hono<AdminEnv> {
  const app = new Hono<AdminEnv>();
  app.get('/usage', async (c) => {
    const { from, to, interval, groupBy, agentId } = c.req.query();
    return c.json(await reader.report({ from, to, interval, groupBy, agentId }));
  });
  return app;
}
