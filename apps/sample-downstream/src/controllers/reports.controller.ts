import { AgentTool, Controller, Get, type FromServices, type Int } from '@tollgate/host-kit';
import type { OrderStatus } from '../data/model.js';
import type { Store } from '../data/store.js';

@Controller('/reports')
export class ReportsController {
  /**
   * @param since Only orders placed at or after this instant (ISO 8601).
   * @param customerId Only orders of this customer.
   */
  @Get('/sales')
  @AgentTool({
    description: 'Order count and revenue in cents per order status.',
    category: 'orders',
    requiredScopes: ['orders:read'],
  })
  salesReport(store: FromServices<Store>, since?: Date, customerId?: Int) {
    const orders = store.orders.filter(
      (order) =>
        (since === undefined || new Date(order.placedAt) >= since) &&
        (customerId === undefined || order.customerId === customerId),
    );
    const byStatus: Partial<Record<OrderStatus, { orders: number; revenueCents: number }>> = {};
    for (const order of orders) {
      const entry = (byStatus[order.status] ??= { orders: 0, revenueCents: 0 });
      entry.orders += 1;
      entry.revenueCents += order.totalCents;
    }
    return { orders: orders.length, byStatus };
  }
}
