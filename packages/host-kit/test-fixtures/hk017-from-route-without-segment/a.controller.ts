import { AgentTool, Controller, Delete, Get, Post, type FromBody, type FromQuery, type FromRoute } from '@tollgate/host-kit';

@Controller('/a')
export class AController {
  @Get('/x')
  @AgentTool({ description: 'FromRoute without a segment.' })
  read(id: FromRoute<string>) {
    return id;
  }
}
