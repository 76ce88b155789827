import { AgentTool, Controller, Get, Post, type FromBody, type Int } from '@tollgate/host-kit';

interface NewRun {
  query: string;
  priority: Int;
}

@Controller('/regions')
export class RegionsController {
  /** The region is mirrored into Mcp-Param-Region, so a load balancer can route on it; the user confirms each run. */
  @Post(':region/runs')
  @AgentTool({ description: 'Runs a query in one region.', allowWrite: true, confirm: true, paramHeaders: { region: 'Region', dryRun: 'Dry-Run' } })
  runQuery(region: string, run: FromBody<NewRun>, dryRun?: boolean) {
    return { region, run, dryRun };
  }
}
