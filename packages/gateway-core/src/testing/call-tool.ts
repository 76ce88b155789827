import { callTool } from '../pipeline/tool-call.js';
import type { ToolCallSuccess } from '../pipeline/tool-call-report.js';

/** A tools/call expected to succeed: its report, or its error thrown so a test can expect that instead. */
export async function callToolOrThrow(...args: Parameters<typeof callTool>): Promise<ToolCallSuccess> {
  const report = await callTool(...args);
  if (!report.ok) throw report.error;
  return report;
}
