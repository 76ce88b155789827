import { withAgentTool } from '@tollgate/host-kit';
import { Hono } from 'hono';
import { z } from 'zod';
import type { OrderLine } from '../data/model.js';
import type { Store } from '../data/store.js';
import { ApiError, handleError, notFound } from '../http/errors.js';
import { parseInput, readJson } from '../http/validate.js';
import { SAMPLE_TOOLS } from '../tools.js';

/** Upper bound of `limit` on list_orders: large enough to overflow a token cap. */
export const MAX_ORDERS_PER_PAGE = 500;

const orderRoute = z.object({ id: z.coerce.number().int().positive().describe('Order id, e.g. 1001') });

const listQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_ORDERS_PER_PAGE)
    .default(20)
    .describe(`Page size, 1-${MAX_ORDERS_PER_PAGE}; large pages make large responses`),
  offset: z.coerce.number().int().min(0).default(0).describe('Orders to skip'),
  status: z.enum(['pending', 'paid', 'shipped', 'cancelled']).optional().describe('Only orders in this status'),
  customerId: z.coerce.number().int().positive().optional().describe('Only orders of this customer'),
});

const orderLines = z
  .array(
    z.object({
      sku: z.string().min(1).describe('Product SKU, e.g. KB-100'),
      quantity: z.int().min(1).max(1000),
    }),
  )
  .min(1)
  .describe('What to order: one entry per product');

const quoteBody = z.object({ lines: orderLines });

const newOrder = z.object({
  customerId: z.int().positive().describe('Customer placing the order'),
  lines: orderLines,
  note: z.string().max(500).nullable().optional().describe('Delivery note'),
});

/** `/orders`: mounted with app.route. */
export function orderRoutes(store: Store): Hono {
  const orders = new Hono();
  orders.onError(handleError);

  orders.get(
    '/',
    withAgentTool({
      name: SAMPLE_TOOLS.listOrders,
      description:
        'List orders, newest last, with their lines and totals. Filter by status or customer; page with limit ' +
        'and offset.',
      category: 'orders',
      requiredScopes: ['orders:read'],
      input: { query: listQuery },
    }),
    (c) => {
      const { limit, offset, status, customerId } = parseInput(listQuery, c.req.query(), 'query');
      const matches = store.orders.filter(
        (order) => (!status || order.status === status) && (!customerId || order.customerId === customerId),
      );
      return c.json({ total: matches.length, limit, offset, orders: matches.slice(offset, offset + limit) });
    },
  );

  orders.get(
    '/:id{[0-9]+}',
    withAgentTool({
      name: SAMPLE_TOOLS.getOrder,
      description: 'Get one order by id with its lines, total and status.',
      category: 'orders',
      input: { route: orderRoute },
    }),
    (c) => {
      const { id } = parseInput(orderRoute, c.req.param(), 'route');
      const order = store.order(id);
      if (!order) throw notFound(`Order ${id}`);
      return c.json(order);
    },
  );

  // A POST that changes nothing: the tool keeps allowWrite false.
  orders.post(
    '/quote',
    withAgentTool({
      name: SAMPLE_TOOLS.quoteOrder,
      description: 'Price a list of order lines at current prices without placing an order.',
      category: 'orders',
      input: { body: quoteBody },
    }),
    async (c) => {
      const { lines } = parseInput(quoteBody, await readJson(c), 'body');
      const priced = priceLines(store, lines);
      return c.json({ lines: priced, totalCents: priced.reduce((sum, l) => sum + l.quantity * l.unitPriceCents, 0) });
    },
  );

  orders.post(
    '/',
    withAgentTool({
      name: SAMPLE_TOOLS.placeOrder,
      description: 'Place an order for a customer. Reserves stock; fails when a product is short.',
      allowWrite: true,
      category: 'orders',
      requiredScopes: ['orders:write'],
      input: { body: newOrder },
    }),
    async (c) => {
      const { customerId, lines, note } = parseInput(newOrder, await readJson(c), 'body');
      if (!store.customer(customerId))
        throw new ApiError(422, 'unprocessable', `Customer ${customerId} does not exist`);
      const priced = priceLines(store, lines);
      for (const line of priced) {
        const product = store.product(line.sku)!;
        if (product.stock < line.quantity) {
          throw new ApiError(422, 'unprocessable', `Only ${product.stock} of ${line.sku} in stock`);
        }
      }
      for (const line of priced) store.product(line.sku)!.stock -= line.quantity;
      return c.json(store.addOrder(customerId, priced, note ?? null), 201);
    },
  );

  orders.post(
    '/:id{[0-9]+}/cancel',
    withAgentTool({
      name: SAMPLE_TOOLS.cancelOrder,
      description: 'Cancel an order that has not shipped yet and return its stock.',
      allowWrite: true,
      category: 'orders',
      requiredScopes: ['orders:write'],
      input: { route: orderRoute },
    }),
    (c) => {
      const { id } = parseInput(orderRoute, c.req.param(), 'route');
      const order = store.order(id);
      if (!order) throw notFound(`Order ${id}`);
      if (order.status === 'shipped' || order.status === 'cancelled') {
        throw new ApiError(409, 'conflict', `Order ${id} is ${order.status} and cannot be cancelled`);
      }
      order.status = 'cancelled';
      for (const line of order.lines) {
        const product = store.product(line.sku);
        if (product) product.stock += line.quantity;
      }
      return c.json(order);
    },
  );

  return orders;
}

function priceLines(store: Store, lines: ReadonlyArray<{ sku: string; quantity: number }>): OrderLine[] {
  return lines.map(({ sku, quantity }) => {
    const product = store.product(sku);
    if (!product) throw new ApiError(422, 'unprocessable', `Product ${sku} does not exist`);
    return { sku, quantity, unitPriceCents: product.priceCents };
  });
}
