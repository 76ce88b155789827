import { AgentTool, Controller, Delete, Get, Post, type FromBody, type FromQuery, type FromRoute } from '@tollgate/host-kit';

interface Filter { text: string }

@Controller('/a')
export class AController {
  @Get('/search')
  @AgentTool({ description: 'A body on GET.' })
  search(filter: Filter) {
    return filter;
  }

  @Delete('/:id')
  @AgentTool({ description: 'A body on DELETE.', allowWrite: true })
  remove(id: string, reason: FromBody<string>) {
    return { id, reason };
  }
}
