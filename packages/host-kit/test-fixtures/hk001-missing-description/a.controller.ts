import { AgentTool, Controller, Delete, Get, Post, type FromBody, type FromQuery, type FromRoute } from '@tollgate/host-kit';

@Controller('/a')
export class AController {
  @Get('/empty')
  @AgentTool({ description: '' })
  empty() {}

  @Get('/blank')
  @AgentTool({ description: '   ' })
  blank() {}

  @Get('/absent')
  @AgentTool({ allowWrite: false } as never)
  absent() {}
}
