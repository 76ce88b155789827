import { AgentTool, Controller, Get } from '@tollgate/host-kit';

@Controller('/search')
export class SearchController {
  @Get()
  @AgentTool({ description: 'Searches.' })
  search(text: string, cursor: string | null) {
    return { text, cursor };
  }
}
