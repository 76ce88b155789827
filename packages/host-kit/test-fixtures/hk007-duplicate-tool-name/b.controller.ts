import { AgentTool, Controller, Delete, Get, Post, type FromBody, type FromQuery, type FromRoute } from '@tollgate/host-kit';

@Controller('/b')
export class BController {
  @Get()
  @AgentTool({ description: 'Lists things.' })
  list() {}
}
