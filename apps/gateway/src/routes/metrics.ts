import type { TokenService } from '@tollgate/gateway-core';
import { Hono } from 'hono';
import { requireAdmin, type AdminEnv } from '../http/admin-guard.js';
import type { ClusterMetrics } from '../observability/cluster-metrics.js';
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

/**
 * GET /metrics of the primary process (`Gw:Metrics:Port` with
 * `Gw:Http:Workers` > 1): every listening worker's metrics, merged. 503 while
 * no worker answers (all starting or replaced).
 */
export function clusterMetricsRoutes(metrics: ClusterMetrics): Hono {
  const app = new Hono();
  app.get('/', async (c) => {
    const { text, answered } = await metrics.collect();
    if (answered === 0) return c.text('no worker answered the scrape', 503);
    return c.body(text, 200, { 'Content-Type': metrics.contentType });
  });
  return app;
}
