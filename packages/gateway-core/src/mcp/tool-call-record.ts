import { context, propagation, SpanKind, SpanStatusCode, trace, type Context, type Span, type TextMapGetter } from '@opentelemetry/api';
import { performance } from 'node:perf_hooks';
import type { AuditEvent } from '../audit/trail.js';
import { describeError } from '../errors.js';
import type { ToolCallReport } from '../pipeline/tool-call.js';
import { SPAN_ATTRIBUTES as ATTR, SPAN_NAMES, TRACER_NAME } from '../tracing.js';

/** Request headers by lower-case name, as Node gives them. */
export type HeaderRecord = Readonly<Record<string, string | string[] | undefined>>;

const tracer = trace.getTracer(TRACER_NAME);

const headerGetter: TextMapGetter<HeaderRecord> = {
  get: (headers, key) => headers[key.toLowerCase()],
  keys: (headers) => Object.keys(headers),
};

/** Who made a call, as far as the gateway got in finding out. */
export interface CallerIds {
  agentId: string | null;
  sessionId: string | null;
  /** For a call made with an OAuth issuer's token: the issuer and the identity it names. */
  issuer?: string;
  subject?: string;
}

/**
 * One tools/call from the moment its request is read to its answer: the
 * root span of its trace (`tollgate.tools/call`, kind SERVER, continuing the
 * caller's W3C `traceparent`) and its one audit event, both ended by `end`
 * whichever step ended the call.
 */
export class ToolCallRecord {
  /** Run the pipeline in this context so its spans, and the downstream request, join this trace. */
  readonly context: Context;
  readonly #span: Span;
  readonly #started = performance.now();
  readonly #audit: (event: AuditEvent) => void;

  constructor(audit: (event: AuditEvent) => void, headers: HeaderRecord = {}) {
    this.#audit = audit;
    const parent = propagation.extract(context.active(), headers, headerGetter);
    this.#span = tracer.startSpan(SPAN_NAMES.toolsCall, { kind: SpanKind.SERVER }, parent);
    this.context = trace.setSpan(parent, this.#span);
  }

  /** Records the call's audit event, ends its span, and returns its `Server-Timing`. */
  end(ids: CallerIds, report: ToolCallReport): string {
    const totalMs = performance.now() - this.#started;
    const gatewayMs = Math.max(totalMs - (report.downstreamMs ?? 0), 0);
    const event: AuditEvent = {
      kind: 'tool-call',
      ...ids,
      tool: report.tool,
      ...(report.downstream === undefined ? {} : { downstream: report.downstream }),
      ...(report.callId === undefined ? {} : { callId: report.callId }),
      argsDigest: report.argsDigest,
      tokensCharged: report.tokensCharged,
      cacheTier: report.cacheTier,
      downstreamStatus: report.downstreamStatus,
      downstreamMs: report.downstreamMs,
      gatewayMs,
      ...ending(report),
    };
    this.#audit(event);
    endSpan(this.#span, event);
    return serverTiming(gatewayMs, report);
  }
}

/** How the call ended, in the audit trail's words; a failure is named by the catalogue. */
function ending(report: ToolCallReport): Pick<AuditEvent, 'outcome' | 'httpStatus' | 'jsonRpcCode' | 'detail'> {
  if (report.ok) {
    return {
      outcome: report.cacheTier ? 'cache-hit' : 'ok',
      httpStatus: 200,
      jsonRpcCode: null,
      detail: report.truncated ? 'response truncated to fit the cap' : null,
    };
  }
  const described = describeError(report.error);
  // The error's title only: its message may echo caller input.
  return { outcome: described.outcome, httpStatus: described.httpStatus, jsonRpcCode: described.jsonRpcCode, detail: described.title };
}

/** `Server-Timing`: time in the gateway and at the downstream, in ms, and the cache tier that answered. */
function serverTiming(gatewayMs: number, report: ToolCallReport): string {
  const timing = [`gateway;dur=${gatewayMs.toFixed(2)}`];
  if (report.downstreamMs !== null) timing.push(`downstream;dur=${report.downstreamMs.toFixed(2)}`);
  if (report.cacheTier !== null) timing.push(`cache;desc=${report.cacheTier}`);
  return timing.join(', ');
}

/** Ends the span with what the audit trail records: identifiers, outcome and statuses, never arguments. */
function endSpan(span: Span, event: AuditEvent): void {
  if (span.isRecording()) {
    span.setAttribute(ATTR.outcome, event.outcome);
    if (event.tool) span.setAttribute(ATTR.tool, event.tool);
    if (event.agentId) span.setAttribute(ATTR.agentId, event.agentId);
    if (event.httpStatus != null) span.setAttribute(ATTR.httpStatus, event.httpStatus);
    if (event.jsonRpcCode != null) span.setAttribute(ATTR.jsonRpcCode, event.jsonRpcCode);
    if (event.tokensCharged) span.setAttribute(ATTR.tokensCharged, event.tokensCharged);
    if (event.outcome !== 'ok' && event.outcome !== 'cache-hit') span.setAttribute(ATTR.errorType, event.outcome);
    // As for HTTP server spans: a refusal the caller caused (4xx) is not the gateway failing.
    if (event.httpStatus != null && event.httpStatus >= 500) span.setStatus({ code: SpanStatusCode.ERROR, message: event.detail ?? event.outcome });
  }
  span.end();
}
