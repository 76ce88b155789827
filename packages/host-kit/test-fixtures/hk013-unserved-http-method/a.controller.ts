import { AgentTool, Controller, Delete, Get, Post, type FromBody, type FromQuery, type FromRoute } from '@tollgate/host-kit';

@Controller('/a')
export class AController {
  @Get()
  @AgentTool({ description: 'Says POST, serves GET.', httpMethod: 'POST' })
  list() {}
}
