import { AgentTool, Controller, Delete, Get, Post, type FromBody, type FromQuery, type FromRoute } from '@tollgate/host-kit';

@Controller('/a')
export class AController {
  @Post('/rest')
  rest(...ids: string[]) {
    return ids;
  }

  @Get('/query')
  objectQuery(filter: FromQuery<{ text: string }>) {
    return filter;
  }

  @Get('/:ids')
  arrayRoute(ids: string[]) {
    return ids;
  }
}
