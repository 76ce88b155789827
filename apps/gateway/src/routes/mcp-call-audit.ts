import { describeError, toolCallFailureOutcome, type AuditEvent, type ToolCallOutcome, type ToolCallTrace } from '@tollgate/gateway-core';
import { performance } from 'node:perf_hooks';
import type { ToolCallSpan } from '../observability/tool-call-span.js';

/**
 * Collects what one tools/call request learns as it goes (agent, session,
 * trace of the pipeline) and records exactly one audit event when it ends,
 * whichever step ended it; the request's trace span ends with the same event.
 */
export class ToolCallAudit {
  readonly trace: ToolCallTrace = {};
  agentId: string | null = null;
  sessionId: string | null = null;
  readonly #started = performance.now();
  #recorded = false;

  constructor(
    private readonly record: (event: AuditEvent) => void,
    readonly span?: ToolCallSpan,
  ) {}

  succeeded(outcome: ToolCallOutcome): void {
    this.#finish({
      outcome: outcome.cacheTier ? 'cache-hit' : 'ok',
      httpStatus: 200,
      jsonRpcCode: null,
      detail: outcome.truncated ? 'response truncated to fit the cap' : null,
    });
  }

  failed(error: unknown): void {
    const described = describeError(error);
    this.#finish({
      outcome: toolCallFailureOutcome(error, this.trace),
      httpStatus: described.httpStatus,
      jsonRpcCode: described.jsonRpcCode,
      // The error's title only: its message may echo caller input.
      detail: described.title,
    });
  }

  /** `Server-Timing` for the reply: time in the gateway and at the downstream, in ms. */
  serverTiming(): string {
    const downstreamMs = this.trace.downstreamMs ?? 0;
    const gatewayMs = Math.max(performance.now() - this.#started - downstreamMs, 0);
    const timing = [`gateway;dur=${gatewayMs.toFixed(2)}`];
    if (this.trace.downstreamMs !== undefined) timing.push(`downstream;dur=${downstreamMs.toFixed(2)}`);
    if (this.trace.cacheTier !== undefined) timing.push(`cache;desc=${this.trace.cacheTier}`);
    return timing.join(', ');
  }

  #finish(result: Pick<AuditEvent, 'outcome' | 'httpStatus' | 'jsonRpcCode' | 'detail'>): void {
    if (this.#recorded) return;
    this.#recorded = true;
    const totalMs = performance.now() - this.#started;
    const downstreamMs = this.trace.downstreamMs ?? null;
    const event: AuditEvent = {
      kind: 'tool-call',
      agentId: this.agentId,
      sessionId: this.sessionId,
      tool: this.trace.tool ?? null,
      argsDigest: this.trace.argsDigest ?? null,
      tokensCharged: this.trace.tokensCharged ?? 0,
      cacheTier: this.trace.cacheTier ?? null,
      downstreamStatus: this.trace.downstreamStatus ?? null,
      downstreamMs,
      gatewayMs: Math.max(totalMs - (downstreamMs ?? 0), 0),
      ...result,
    };
    this.record(event);
    this.span?.end(event);
  }
}
