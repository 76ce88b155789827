import { AgentTool, Controller, Delete, Get, Post, type FromBody, type FromQuery, type FromRoute } from '@tollgate/host-kit';

export class NotAController {
  @Get('/x')
  @AgentTool({ description: 'Not in a controller.' })
  read() {}
}
