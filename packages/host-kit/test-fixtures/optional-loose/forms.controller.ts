import { AgentTool, Controller, Get, Post } from '@tollgate/host-kit';

interface Payload {
  nullable: string | null;
  question?: string;
  undefinedable: string | undefined;
  plain: string;
}

@Controller('/forms')
export class FormsController {
  @Get('/:id?')
  @AgentTool({ description: 'Optional parameters.' })
  query(id: string | undefined, a?: string, b = 5, c: string | null = null, d: string | undefined, e: string | null, f: string) {
    return { id, a, b, c, d, e, f };
  }

  @Post()
  @AgentTool({ description: 'Nullable properties are optional.', allowWrite: true })
  submit(payload: Payload) {
    return payload;
  }

  @Post('/draft')
  @AgentTool({ description: 'A nullable body makes every property optional.', allowWrite: true })
  draft(payload: Payload | null) {
    return payload;
  }
}
