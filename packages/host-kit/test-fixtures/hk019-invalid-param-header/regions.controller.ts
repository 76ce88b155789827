import { AgentTool, Controller, Get } from '@tollgate/host-kit';

@Controller('/regions')
export class RegionsController {
  /** A number cannot be mirrored into a header. */
  @Get(':region')
  @AgentTool({ description: 'Reads a region.', paramHeaders: { ratio: 'Ratio' } })
  getRegion(region: string, ratio?: number) {
    return { region, ratio };
  }

  /** Two header names equal but for case. */
  @Get(':region/stats')
  @AgentTool({ description: 'Reads region statistics.', paramHeaders: { region: 'Region', day: 'REGION' } })
  getStats(region: string, day?: string) {
    return { region, day };
  }

  /** Not an HTTP token. */
  @Get(':region/logs')
  @AgentTool({ description: 'Reads region logs.', paramHeaders: { region: 'My Region' } })
  getLogs(region: string) {
    return { region };
  }
}
