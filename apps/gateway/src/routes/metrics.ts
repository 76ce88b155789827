import type { TokenService } from '@tollgate/gateway-core';
import { Hono } from 'hono';
import { requireAdmin, type AdminEnv } from '../http/admin-guard.js';
import type { GatewayMetrics } from '../observability/metrics.js';

/**
 * GET /metrics in the Prometheus text format. Behind an admin token on the
 * main port; `Gw:Metrics:Port` serves it without one on a separate port
 * meant to be reachable only inside the cluster.
 */
export function metricsRoutes(metrics: GatewayMetrics, tokens: TokenService | null): Hono<AdminEnv> {
  const app = new Hono<AdminEnv>();
  if (tokens) app.use('*', requireAdmin(tokens));
  app.get('/', async (c) => c.body(await metrics.text(), 200, { 'Content-Type': metrics.contentType }));
  return app;
}
