import { AgentTool, Controller, Delete, Get, Post, type FromBody, type FromQuery, type FromRoute } from '@tollgate/host-kit';

// @ts-expect-error -- a method decorator on a class
@AgentTool({ description: 'On a class.' })
@Controller('/a')
export class AController {
  // @ts-expect-error -- a method decorator on a field
  @AgentTool({ description: 'On a field.' })
  field = 1;

  @Get('/static')
  static staticRead() {}
}
