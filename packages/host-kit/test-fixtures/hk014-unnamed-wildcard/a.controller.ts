import { AgentTool, Controller, Delete, Get, Post, type FromBody, type FromQuery, type FromRoute } from '@tollgate/host-kit';

@Controller('/files')
export class AController {
  @Get('/*')
  @AgentTool({ description: 'An unnamed wildcard.' })
  read() {}
}
