import { AgentTool, Controller, Put } from '@tollgate/host-kit';

interface ItemUpdate {
  id: number;
  version?: number;
  name: string;
}

@Controller('/items')
export class ItemsController {
  /** `id` is route, `version` query, both also body properties: route, then query, then body. */
  @Put('/:id')
  @AgentTool({ description: 'Updates an item.', allowWrite: true })
  updateItem(update: ItemUpdate, id: string, version: string) {
    return { update, id, version };
  }
}
