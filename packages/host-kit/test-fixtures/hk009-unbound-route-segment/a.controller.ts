import { AgentTool, Controller, Delete, Get, Post, type FromBody, type FromQuery, type FromRoute } from '@tollgate/host-kit';

@Controller('/a/:tenant')
export class AController {
  @Get('/:id')
  @AgentTool({ description: 'Neither segment is bound.' })
  read() {}

  @Get('/items/:itemId')
  readItem(tenant: string) {
    return tenant;
  }
}
