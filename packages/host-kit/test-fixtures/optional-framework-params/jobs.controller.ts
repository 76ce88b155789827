import type { Context, HonoRequest } from 'hono';
import { AgentTool, Controller, Get, Post, type FromHeader } from '@tollgate/host-kit';
import { Context as AppContext } from './context.js';

/** Under "strict": true, an optional framework parameter's type is `T | undefined`; it is still supplied by the kit. */
@Controller('/jobs')
export class JobsController {
  @Get('/:id')
  @AgentTool({ description: 'Reads one job.' })
  getJob(id: string, c?: Context, request?: HonoRequest, signal?: AbortSignal) {
    return { id, path: c?.req.path, url: request?.url, aborted: signal?.aborted };
  }

  @Post()
  @AgentTool({ description: 'Starts a job.', allowWrite: true })
  startJob(ctx: Context | undefined, raw: Request | undefined, requestId?: FromHeader<string>, stream?: ReadableStream) {
    return { path: ctx?.req.path, method: raw?.method, requestId, locked: stream?.locked };
  }

  @Post('/tenant')
  @AgentTool({ description: 'A user class named Context stays a body, optional or not.', allowWrite: true })
  forTenant(context?: AppContext) {
    return { tenant: context?.tenant };
  }
}
