import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { afterEach, describe, expect, it } from 'vitest';
import type { AuditEvent } from '../audit/trail.js';
import { ToolCallRecord } from './tool-call-record.js';

const sent = {
  ok: true as const,
  result: { content: [{ type: 'text' as const, text: '{}' }] as [{ type: 'text'; text: string }] },
  truncated: false,
  tool: 'get_order',
  argsDigest: 'd',
  cacheTier: null,
  downstreamStatus: 200,
  downstreamMs: 3,
  tokensCharged: 12,
  downstreamAnswer: null,
};

describe('ToolCallRecord', () => {
  it('writes one audit event naming the downstream, the call id of its assertion and an external caller', () => {
    const events: AuditEvent[] = [];
    const record = new ToolCallRecord((event) => events.push(event));
    const timing = record.end(
      { agentId: 'agt_1', sessionId: 's1', issuer: 'https://idp.example', subject: 'alice' },
      { ...sent, downstream: 'orders', callId: 'call-1' },
    );
    expect(events).toEqual([
      expect.objectContaining({
        kind: 'tool-call',
        outcome: 'ok',
        agentId: 'agt_1',
        tool: 'get_order',
        downstream: 'orders',
        callId: 'call-1',
        issuer: 'https://idp.example',
        subject: 'alice',
      }),
    ]);
    expect(timing).toMatch(/^gateway;dur=[\d.]+, downstream;dur=3\.00$/);
  });

  it('leaves those fields out of a call that never reached a downstream', () => {
    const events: AuditEvent[] = [];
    new ToolCallRecord((event) => events.push(event)).end(
      { agentId: null, sessionId: null },
      { ...sent, downstreamStatus: null, downstreamMs: null },
    );
    expect(events[0]).not.toHaveProperty('downstream');
    expect(events[0]).not.toHaveProperty('callId');
    expect(events[0]).not.toHaveProperty('issuer');
  });
});

describe('ToolCallRecord without an OpenTelemetry SDK', () => {
  const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

  afterEach(() => {
    context.disable();
    propagation.disable();
  });

  it('runs the pipeline in the active context as it is: no span is made active', () => {
    const record = new ToolCallRecord(() => {}, { traceparent });
    const outside = context.active();
    const inside = record.run(() => ({ active: context.active(), span: trace.getActiveSpan() }));
    expect(inside.active).toBe(outside);
    expect(inside.span).toBeUndefined();
  });

  it("still carries a caller's trace to the pipeline when a propagator is registered", async () => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    const record = new ToolCallRecord(() => {}, { traceparent });
    const traceId = await record.run(async () => {
      await Promise.resolve();
      return trace.getActiveSpan()?.spanContext().traceId;
    });
    expect(traceId).toBe('0af7651916cd43dd8448eb211c80319c');
  });
});
