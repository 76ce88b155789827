import type { Context, HonoRequest } from 'hono';
import { AgentTool, Controller, Get, Post } from '@tollgate/host-kit';
import { Context as AppContext } from './context.js';

@Controller('/events')
export class EventsController {
  @Get('/:id')
  @AgentTool({ description: 'Reads one event.' })
  getEvent(c: Context, id: string, request: HonoRequest, raw: Request, response: Response, signal: AbortSignal) {
    return { path: c.req.path, id, url: request.url, method: raw.method, status: response.status, aborted: signal.aborted };
  }

  @Post()
  @AgentTool({ description: 'Uploads an event stream.', allowWrite: true })
  upload(stream: ReadableStream, context: AppContext) {
    return { locked: stream.locked, tenant: context.tenant };
  }
}
