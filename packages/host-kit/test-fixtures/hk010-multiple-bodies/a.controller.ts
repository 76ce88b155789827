import { AgentTool, Controller, Delete, Get, Post, type FromBody, type FromQuery, type FromRoute } from '@tollgate/host-kit';

interface Order { item: string }
interface Payment { amount: number }

@Controller('/a')
export class AController {
  @Post()
  @AgentTool({ description: 'Two bodies.', allowWrite: true })
  pay(order: Order, payment: Payment) {
    return { order, payment };
  }
}
