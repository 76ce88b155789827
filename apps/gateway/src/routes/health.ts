import { Hono } from 'hono';
import type { Readiness } from '../health/readiness.js';

/** Contract 4.4: liveness never touches dependencies; readiness checks them for real. */
export function healthRoutes(readiness: Readiness): Hono {
  const app = new Hono();
  app.get('/live', (c) => c.json({ status: 'Healthy' }));
  app.get('/ready', async (c) => {
    const report = await readiness.report();
    c.header('Cache-Control', 'no-store');
    // Degraded is ready: some downstream's tools are served; only Unhealthy takes the instance out of rotation.
    return c.json(report, report.status === 'Unhealthy' ? 503 : 200);
  });
  return app;
}
