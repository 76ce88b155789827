import { AgentTool, Controller, Get, Put, type Int } from '@tollgate/host-kit';

interface OrderChange {
  /** How many items. */
  quantity: Int;
  note?: string | null;
  tags: string[];
  lineIds: Int[];
  address: { street: string; zip?: string };
  express: boolean;
  price: number;
}

@Controller('/orders')
export class OrdersController {
  /**
   * @param id - The order id.
   * @param notify Whether to email the customer.
   */
  @Put('/:id')
  @AgentTool({
    description: 'Changes an order.',
    allowWrite: true,
    maxResponseTokens: 800,
    category: 'orders',
    requiredScopes: ['orders:write'],
  })
  updateOrder(id: Int, change: OrderChange, notify?: boolean) {
    return { id, change, notify };
  }

  @Get('/:id')
  @AgentTool({ description: 'Reads an order.' })
  getOrder(id: string) {
    return { id };
  }
}
