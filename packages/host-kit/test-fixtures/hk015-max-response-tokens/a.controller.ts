import { AgentTool, Controller, Delete, Get, Post, type FromBody, type FromQuery, type FromRoute } from '@tollgate/host-kit';

@Controller('/a')
export class AController {
  @Get('/zero')
  @AgentTool({ description: 'Zero.', maxResponseTokens: 0 })
  zero() {}

  @Get('/negative')
  @AgentTool({ description: 'Negative.', maxResponseTokens: -5 })
  negative() {}

  @Get('/fraction')
  @AgentTool({ description: 'Fraction.', maxResponseTokens: 1.5 })
  fraction() {}
}
