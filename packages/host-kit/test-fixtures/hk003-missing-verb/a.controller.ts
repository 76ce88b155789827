import { AgentTool, Controller } from '@tollgate/host-kit';

/** A user decorator that is only named like the kit's: not a verb decorator. */
function Get(_path: string) {
  return (_method: unknown, _context: ClassMethodDecoratorContext) => {};
}

@Controller('/a')
export class AController {
  @AgentTool({ description: 'No verb at all.' })
  noVerb() {}

  @Get('/lookalike')
  @AgentTool({ description: 'A lookalike verb.' })
  lookalike() {}
}
