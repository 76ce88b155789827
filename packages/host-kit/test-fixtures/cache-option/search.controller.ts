import { AgentTool, Controller, Get } from '@tollgate/host-kit';

@Controller('/search')
export class SearchController {
  /** A free-text search: opted into the gateway's semantic cache tier. */
  @Get()
  @AgentTool({ description: 'Searches articles by words.', cache: { semantic: true, significantTerms: ['draft', ['published', 'live']] } })
  searchArticles(q?: string) {
    return { q };
  }

  /** No cache option: the manifest has no cache field. */
  @Get(':id')
  @AgentTool({ description: 'Reads one article.' })
  getArticle(id: string) {
    return { id };
  }
}
