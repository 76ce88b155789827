import { context, propagation, SpanKind, SpanStatusCode, trace, type Context, type Span, type TextMapGetter } from '@opentelemetry/api';
import { SPAN_ATTRIBUTES as ATTR, SPAN_NAMES, type AuditEvent } from '@tollgate/gateway-core';

const tracer = trace.getTracer('@tollgate/gateway-app');

/** Request headers by lower-case name, as Node gives them. */
export type HeaderRecord = Readonly<Record<string, string | string[] | undefined>>;

const headerGetter: TextMapGetter<HeaderRecord> = {
  get: (headers, key) => headers[key.toLowerCase()],
  keys: (headers) => Object.keys(headers),
};

/**
 * The root span of one tools/call request (`tollgate.tools/call`, kind
 * SERVER). It continues the caller's trace when the request carries a W3C
 * `traceparent`, and the pipeline's step spans nest under it when run in
 * `context`. Without a tracing SDK it is the API's no-op span.
 */
export class ToolCallSpan {
  /** Run the call in this context so its spans, and the downstream request, belong to this trace. */
  readonly context: Context;
  readonly #span: Span;

  constructor(headers: HeaderRecord) {
    const parent = propagation.extract(context.active(), headers, headerGetter);
    this.#span = tracer.startSpan(SPAN_NAMES.toolsCall, { kind: SpanKind.SERVER }, parent);
    this.context = trace.setSpan(parent, this.#span);
  }

  /** Ends the span with what the audit trail records: identifiers, outcome and statuses, never arguments. */
  end(event: AuditEvent): void {
    const span = this.#span;
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
}
