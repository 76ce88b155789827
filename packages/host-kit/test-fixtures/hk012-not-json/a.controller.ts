import { AgentTool, Controller, Delete, Get, Post, type FromBody, type FromQuery, type FromRoute } from '@tollgate/host-kit';

interface Job {
  name: string;
  onDone: () => void;
}

@Controller('/a')
export class AController {
  @Post('/callback')
  @AgentTool({ description: 'A function parameter.', allowWrite: true })
  withCallback(callback: FromBody<() => void>) {
    return callback;
  }

  @Post('/job')
  @AgentTool({ description: 'A function property.', allowWrite: true })
  withJob(job: Job) {
    return job;
  }

  @Get('/symbol')
  withSymbol(key: symbol, keys: FromQuery<Array<() => void>>) {
    return [String(key), keys.length];
  }
}
