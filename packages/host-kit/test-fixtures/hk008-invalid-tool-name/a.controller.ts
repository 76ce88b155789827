import { AgentTool, Controller, Delete, Get, Post, type FromBody, type FromQuery, type FromRoute } from '@tollgate/host-kit';

@Controller('/a')
export class AController {
  @Get('/uebersicht')
  @AgentTool({ description: 'Non-ASCII name.' })
  getÜbersicht() {}

  @Get('/long')
  @AgentTool({ description: 'Too long.' })
  xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx() {}
}
