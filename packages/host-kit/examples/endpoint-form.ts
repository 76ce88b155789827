import { mapAgentToolSchema, withAgentTool } from '@tollgate/host-kit';
import { Hono } from 'hono';
import { z } from 'zod';
import { findOrder, placeOrder, updateCustomer } from './shop.js';

const app = new Hono();

const orders = new Hono();
orders.get(
  '/:id{[0-9]+}',
  withAgentTool({
    name: 'get_order',
    description: 'Get one order by id with its lines and total.',
    category: 'orders',
    requiredScopes: ['orders:read'],
    input: { route: z.object({ id: z.coerce.number().int().describe('Order id') }) },
  }),
  (c) => c.json(findOrder(Number(c.req.param('id')))),
);

// One schema both describes the tool and validates the request, so they cannot disagree.
const newOrder = z.object({
  customerId: z.int().describe('Customer placing the order'),
  lines: z.array(z.object({ sku: z.string(), quantity: z.int().min(1) })),
  // Nullable inputs are optional to agents (contract 4.6): default to null so an omitted note parses.
  note: z.string().nullable().default(null),
});
orders.post(
  '/',
  withAgentTool({
    name: 'place_order',
    description: 'Place an order for a customer.',
    allowWrite: true,
    requiredScopes: ['orders:write'],
    input: { query: z.object({ notify: z.boolean().optional() }), body: newOrder },
  }),
  async (c) => {
    const parsed = newOrder.safeParse(await c.req.json());
    if (!parsed.success) return c.json({ error: 'invalid order', issues: parsed.error.issues }, 400);
    return c.json(placeOrder(parsed.data), 201);
  },
);
app.route('/orders', orders);

// A route serving several verbs must say which one agents call.
app.on(
  ['PUT', 'PATCH'],
  '/customers/:id',
  withAgentTool({
    name: 'update_customer',
    description: 'Change contact details.',
    allowWrite: true,
    httpMethod: 'PATCH',
  }),
  updateCustomer,
);

app.get('/health', (c) => c.text('ok')); // not marked: never shown to agents

// Call it on the root app; routes added after this line are served too.
mapAgentToolSchema(app, { includeMappedEndpoints: true });

export default app;
