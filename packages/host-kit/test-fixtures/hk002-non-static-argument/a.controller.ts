import { AgentTool, Controller, Delete, Get, Post, type FromBody, type FromQuery, type FromRoute } from '@tollgate/host-kit';

const prefix = '/dynamic';
const DESCRIPTION = 'Computed at run time.';
const scopes = ['a:read'];
const path = () => '/x';

@Controller(prefix)
export class DynamicPrefixController {
  @Get('/x')
  read() {}
}

@Controller('/a')
export class AController {
  @Get(path())
  computedPath() {}

  @Get('/description')
  @AgentTool({ description: DESCRIPTION })
  variableDescription() {}

  @Get('/scopes')
  @AgentTool({ description: 'Spread scopes.', requiredScopes: [...scopes] })
  spreadScopes() {}

  // @ts-expect-error -- used bare, not called
  @Get
  bare() {}

  @Get('/typed')
  @AgentTool({ description: 'Wrong option type.', allowWrite: 'yes' as never })
  wrongType() {}
}
