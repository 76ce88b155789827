// The sample data behind the README's endpoint-form example (not shown in the README).
import type { Context } from 'hono';

const orders = new Map([
  [1001, { id: 1001, customerId: 1, lines: [{ sku: 'KB-100', quantity: 1 }], note: null as string | null }],
]);

export function findOrder(id: number) {
  return orders.get(id) ?? null;
}

export function placeOrder(order: {
  customerId: number;
  lines: Array<{ sku: string; quantity: number }>;
  note: string | null;
}) {
  const placed = { id: 1000 + orders.size + 1, ...order };
  orders.set(placed.id, placed);
  return placed;
}

export function updateCustomer(c: Context) {
  return c.json({ id: Number(c.req.param('id')), updated: true });
}
