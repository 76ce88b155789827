import { AgentTool, Controller, Get } from '@tollgate/host-kit';

@Controller('/broken')
export class BrokenController {
  @Get('/:id')
  @AgentTool({ description: '' })
  read() {}
}
