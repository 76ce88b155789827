// The annotation form's example in docs/reference.md, as it is there; keep the two the same.
// src/controllers/orders.controller.ts
import type { Context } from 'hono';
import {
  AgentTool, Controller, Get, Post,
  type FromHeader, type FromServices, type Int,
} from '@tollgate/host-kit';
import { OrderStore } from '../store.js';

interface NewOrder {
  /** Customer placing the order. */
  customerId: Int;
  lines: { sku: string; quantity: Int }[];
  note?: string | null;
}

@Controller('/orders')
export class OrdersController {
  /**
   * @param id - Order id.
   * @param expand Include the order lines.
   */
  @Get('/:id')
  @AgentTool({ description: 'Get one order by id.', category: 'orders', requiredScopes: ['orders:read'] })
  getOrder(id: Int, store: FromServices<OrderStore>, expand = false) {
    return store.find(id, expand);
  }

  @Post()
  @AgentTool({ description: 'Place an order.', allowWrite: true, requiredScopes: ['orders:write'] })
  placeOrder(order: NewOrder, store: FromServices<OrderStore>, requestId?: FromHeader<string>, c?: Context) {
    return store.place(order, requestId);
  }
}
