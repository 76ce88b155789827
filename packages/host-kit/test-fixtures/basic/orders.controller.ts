import { AgentTool, Controller, Delete, Get, Post, type Int } from '@tollgate/host-kit';

interface NewOrder {
  customerId: string;
  quantity: Int;
  note?: string;
}

@Controller('/orders')
export class OrdersController {
  @Get(':id')
  @AgentTool({ description: 'Reads one order.' })
  getOrder(id: string, expand?: boolean) {
    return { id, expand };
  }

  @Post()
  @AgentTool({ description: 'Places an order.', allowWrite: true, maxResponseTokens: 500, category: 'orders', requiredScopes: ['orders:write'] })
  createOrder(order: NewOrder) {
    return order;
  }

  /** Routed but not a tool: bound, never shown to the agent. */
  @Delete('/:id')
  cancelOrder(id: string) {
    return { id };
  }

  helper() {
    return 1;
  }
}
