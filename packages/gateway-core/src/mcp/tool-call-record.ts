import {
  context,
  isSpanContextValid,
  propagation,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
  type SpanOptions,
  type TextMapGetter,
} from '@opentelemetry/api';
import { performance } from 'node:perf_hooks';
import type { AuditEvent } from '../audit/trail.js';
import { describeError } from '../errors.js';
import type { ToolCallReport } from '../pipeline/tool-call-report.js';
import { SPAN_ATTRIBUTES as ATTR, SPAN_NAMES, TRACER_NAME } from '../tracing.js';
import { serverTiming } from './server-timing.js';

/** Request headers by lower-case name, as Node gives them. */
export type HeaderRecord = Readonly<Record<string, string | string[] | undefined>>;

const tracer = trace.getTracer(TRACER_NAME);
const ROOT_SPAN: Readonly<SpanOptions> = Object.freeze({ kind: SpanKind.SERVER });

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
  /**
   * Null when the call's span is one nothing reads (see the
   * constructor): the pipeline then runs in the active context as it is.
   */
  readonly #context: Context | null;
  readonly #span: Span;
  readonly #started = performance.now();
  readonly #audit: (event: AuditEvent) => void;
  #via: 'call_tool' | undefined;

  constructor(audit: (event: AuditEvent) => void, headers: HeaderRecord = {}) {
    this.#audit = audit;
    const active = context.active();
    const parent = propagation.extract(active, headers, headerGetter);
    this.#span = tracer.startSpan(SPAN_NAMES.toolsCall, ROOT_SPAN, parent);
    // Without an SDK, and with no caller's trace to carry on, the span is the API's no-op one: made
    // active it would change nothing a step or the forwarder reads, so the context is not rebuilt for it.
    this.#context =
      parent === active && !this.#span.isRecording() && !isSpanContextValid(this.#span.spanContext())
        ? null
        : trace.setSpan(parent, this.#span);
  }

  /** Runs the pipeline in this call's context, so its spans, and the downstream request, join this trace. */
  run<T>(fn: () => T): T {
    return this.#context === null ? fn() : context.with(this.#context, fn);
  }

  /** The call came wrapped in search mode's call_tool: its record names the real tool, and says so. */
  cameThrough(via: 'call_tool'): void {
    this.#via = via;
  }

  /** Records the call's audit event, ends its span, and returns its `Server-Timing`. */
  end(ids: CallerIds, report: ToolCallReport): string {
    const totalMs = performance.now() - this.#started;
    const gatewayMs = Math.max(totalMs - (report.downstreamMs ?? 0), 0);
    const event = auditEvent(ids, report, gatewayMs);
    if (this.#via !== undefined) event.via = this.#via;
    this.#audit(event);
    endSpan(this.#span, event);
    return serverTiming(gatewayMs, report);
  }
}

/**
 * The call's audit event, built in one object: every field the trail reads,
 * and the optional ones only when they apply. How the call ended is in the
 * audit trail's words; a failure is named by the catalogue.
 */
function auditEvent(ids: CallerIds, report: ToolCallReport, gatewayMs: number): AuditEvent {
  const described = report.ok ? null : describeError(report.error);
  const event: AuditEvent = {
    kind: 'tool-call',
    outcome: described === null ? successOutcome(report) : described.outcome,
    agentId: ids.agentId,
    sessionId: ids.sessionId,
    tool: report.tool,
    argsDigest: report.argsDigest,
    tokensCharged: report.tokensCharged,
    cacheTier: report.cacheTier,
    downstreamStatus: report.downstreamStatus,
    downstreamMs: report.downstreamMs,
    gatewayMs,
    httpStatus: described === null ? 200 : described.httpStatus,
    jsonRpcCode: described === null ? null : described.jsonRpcCode,
    // The error's title only: its message may echo caller input.
    detail:
      described === null
        ? report.ok && report.truncated
          ? 'response truncated to fit the cap'
          : null
        : described.title,
  };
  if (report.downstream !== undefined) event.downstream = report.downstream;
  if (report.callId !== undefined) event.callId = report.callId;
  if (ids.issuer !== undefined) event.issuer = ids.issuer;
  if (ids.subject !== undefined) event.subject = ids.subject;
  return event;
}

function successOutcome(report: ToolCallReport): 'ok' | 'cache-hit' | 'input-required' {
  if (report.ok && report.question !== undefined) return 'input-required';
  return report.cacheTier ? 'cache-hit' : 'ok';
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
    if (event.httpStatus != null && event.httpStatus >= 500)
      span.setStatus({ code: SpanStatusCode.ERROR, message: event.detail ?? event.outcome });
  }
  span.end();
}
