import { mapAgentToolSchema, mountControllers } from '@tollgate/host-kit';
import { Hono } from 'hono';
import { agentTools } from './agent-tools.js';
import { InventoryController } from './controllers/inventory.controller.js';
import { ReportsController } from './controllers/reports.controller.js';
import { Store } from './data/store.js';
import { handleError, handleNotFound } from './http/errors.js';
import { customerRoutes } from './routes/customers.js';
import { orderRoutes } from './routes/orders.js';
import { registerProductRoutes } from './routes/products.js';

export interface SampleAppOptions {
  /** Data to serve; a freshly seeded store by default. */
  store?: Store;
}

/** The sample downstream API: customers, orders and products, marked as agent tools. */
export function createApp({ store = new Store() }: SampleAppOptions = {}): Hono {
  const app = new Hono();
  app.onError(handleError);
  app.notFound(handleNotFound);

  // Not an agent tool: it must not appear in GET /gw/schema.
  app.get('/health', (c) => c.json({ status: 'ok' }));

  app.route('/customers', customerRoutes(store));
  app.route('/orders', orderRoutes(store));
  registerProductRoutes(app, store);

  // The annotation form: @AgentTool controllers, bound by the build's manifest.
  mountControllers(app, [new InventoryController(), new ReportsController()], {
    manifest: agentTools,
    services: { Store: store },
  });

  mapAgentToolSchema(app, { includeMappedEndpoints: true, manifest: agentTools });
  return app;
}
