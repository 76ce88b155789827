import { AgentTool, Controller, Get, Post, type Int } from '@tollgate/host-kit';

export enum Status {
  Open = 'open',
  Closed = 'closed',
}

class Report {
  count!: Int;
  ratio!: number;
  big!: bigint;
  flag!: boolean;
  title!: string;
  due!: Date;
  status!: Status;
  level!: 'low' | 'high';
  tier!: 1 | 2;
  ids!: Int[];
  tags!: readonly string[];
  address!: { street: string; zip?: string };
  matrix!: number[][];
  mixed!: string | number;
  extra!: unknown;
  always!: true;
  /** Not part of the body: private, #private, static, methods and accessors. */
  private secret = '';
  protected audited = false;
  #hidden = 0;
  static instances = 0;
  describe(): string {
    return `${this.secret}${this.#hidden}`;
  }
  get summary(): string {
    return this.title;
  }
}

@Controller('/reports')
export class ReportsController {
  @Post()
  @AgentTool({ description: 'Files a report.', allowWrite: true })
  fileReport(report: Report) {
    return report;
  }

  @Get()
  @AgentTool({ description: 'Lists reports.' })
  listReports(page: Int, ratio: number, big: bigint, open: boolean, since: Date, status: Status, level: 'low' | 'high') {
    return { page, ratio, big, open, since, status, level };
  }
}
