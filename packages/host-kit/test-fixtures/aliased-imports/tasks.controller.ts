import { Controller as Ctl, Get as HttpGet, AgentTool as ExposeTool } from '@tollgate/host-kit';
import * as kit from '@tollgate/host-kit';
import { HttpPost, Tool } from './kit.js';

@Ctl('/tasks')
export class TasksController {
  @HttpGet('/:id')
  @ExposeTool({ description: 'Reads a task.' })
  getTask(id: kit.FromRoute<kit.Int>) {
    return { id };
  }

  @kit.Delete('/:id')
  @kit.AgentTool({ description: 'Deletes a task.', allowWrite: true })
  deleteTask(id: string) {
    return { id };
  }

  @HttpPost()
  @Tool({ description: 'Creates a task.', allowWrite: true })
  createTask(title: kit.FromBody<string>) {
    return { title };
  }
}
