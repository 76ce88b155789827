import {
  mapAgentToolSchema,
  mountControllers,
  requireGateway,
  type GatewayCaller,
  type RequireGatewayOptions,
} from '@tollgate/host-kit';
import { Hono, type MiddlewareHandler } from 'hono';
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
  /**
   * Given, the tool routes answer only calls that come through the gateway
   * (host-kit's `requireGateway`), and each such call is logged with its
   * agent. Absent, every route is open (the app run alone, in unit tests).
   */
  gateway?: RequireGatewayOptions;
}

/** The sample downstream API: customers, orders and products, marked as agent tools. */
export function createApp({ store = new Store(), gateway }: SampleAppOptions = {}): Hono {
  const app = new Hono();
  app.onError(handleError);
  app.notFound(handleNotFound);
  if (gateway) {
    app.use(requireGateway(gateway));
    app.use(logGatewayCalls);
  }

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

/** One line per call the gateway made: the caller, as the handler read it with c.get('agent'). */
const logGatewayCalls: MiddlewareHandler = async (c, next) => {
  await next();
  // Set only on tool routes, once the assertion passed.
  const agent = c.get('agent') as GatewayCaller | undefined;
  if (agent)
    console.log(
      `gateway call: tool=${agent.tool} agent=${agent.agentId} scopes=${agent.scopes.join(',') || '-'} ` +
        `call=${agent.callId} status=${c.res.status}`,
    );
};
