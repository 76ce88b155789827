import { AgentTool, Controller, Get } from '@tollgate/host-kit';

@Controller('/search')
export class SearchController {
  @Get()
  @AgentTool({ description: 'Searches articles by words.', cache: { semantic: 'yes' } })
  searchArticles(q?: string) {
    return { q };
  }
}
