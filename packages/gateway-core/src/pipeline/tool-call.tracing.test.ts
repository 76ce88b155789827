import { context, propagation, trace, SpanStatusCode, type Span } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SemanticCache } from '../cache/semantic-cache.js';
import { HttpForwarder } from '../forward/forwarder.js';
import { createMemoryStore } from '../store/memory/index.js';
import type { AgentRecord } from '../store/ports.js';
import { buildToolRegistry } from '../tools/registry.js';
import { createOrder, getCustomer, testAgent } from '../testing/tool-fixtures.js';
import { SPAN_ATTRIBUTES, SPAN_NAMES } from '../tracing.js';
import { callToolOrThrow as callTool } from '../testing/call-tool.js';
import type { ToolCallContext, ToolCallDeps } from './tool-call-deps.js';

const NOW = new Date('2025-05-01T12:00:00Z');
const { registry } = buildToolRegistry([getCustomer, createOrder]);
/** An argument value that must never reach a span. */
const SECRET_ID = 'cust-4111111111111111';

const exporter = new InMemorySpanExporter();
const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
const tracer = trace.getTracer('test');

/** The downstream: a real HTTP server that records each request's headers and answers per path. */
let server: Server;
let baseUrl: string;
const seen: IncomingHttpHeaders[] = [];
let downstreamStatus = 200;

beforeAll(async () => {
  trace.setGlobalTracerProvider(provider);
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  server = createServer((request, response) => {
    seen.push(request.headers);
    request.resume().on('end', () => {
      response.writeHead(downstreamStatus, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ id: SECRET_ID, email: 'ada@example.com' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(() => {
  exporter.reset();
  seen.length = 0;
  downstreamStatus = 200;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await provider.shutdown();
  trace.disable();
  context.disable();
  propagation.disable();
});

function setup() {
  const store = createMemoryStore();
  const forwarder = new HttpForwarder({ baseUrl });
  const cache = new SemanticCache({ cache: store.cache, generation: store.cacheGeneration, generationRefreshMs: 0 });
  const privacy = {
    filter: (_tool: string, value: unknown) => ({ value: { ...(value as object), email: '[REDACTED:email]' } }),
  };
  const deps: ToolCallDeps = {
    registry: () => registry,
    budget: store.budget,
    forwarder,
    cache,
    privacy,
    clock: () => NOW,
  };
  return { deps, cache, budget: store.budget, close: () => forwarder.close() };
}

function caller(overrides: Partial<AgentRecord> = {}, tokenScopes: string[] = []): ToolCallContext {
  return { agent: testAgent(overrides, NOW), tokenScopes, protocolVersion: '2024-11-05' };
}

/** Runs `fn` under a recording parent span, as the HTTP layer does, and returns that span too. */
async function underParent<T>(fn: () => Promise<T>): Promise<{ parent: Span; settled: PromiseSettledResult<T> }> {
  return tracer.startActiveSpan('test.request', async (parent) => {
    const [settled] = await Promise.allSettled([fn()]);
    parent.end();
    return { parent, settled: settled! };
  });
}

function childrenOf(parent: Span): ReadableSpan[] {
  const { spanId } = parent.spanContext();
  return exporter
    .getFinishedSpans()
    .filter((span) => span.parentSpanContext?.spanId === spanId)
    .sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]);
}

const named = (spans: ReadableSpan[], name: string) => spans.find((span) => span.name === name);
const read = { name: 'getCustomer', arguments: { id: SECRET_ID } };

describe('callTool tracing', () => {
  it('opens one child span per pipeline step, in order, under the active span', async () => {
    const { deps, close } = setup();
    const { parent, settled } = await underParent(() => callTool(deps, caller(), read));
    await close();
    if (settled.status !== 'fulfilled') throw settled.reason;

    const children = childrenOf(parent);
    expect(children.map((span) => span.name)).toEqual([
      SPAN_NAMES.authorize,
      SPAN_NAMES.validate,
      SPAN_NAMES.budgetReserve,
      SPAN_NAMES.cacheLookup,
      SPAN_NAMES.forward,
      SPAN_NAMES.privacy,
      SPAN_NAMES.cap,
      SPAN_NAMES.budgetSettle,
    ]);
    expect(children.every((span) => span.spanContext().traceId === parent.spanContext().traceId)).toBe(true);
    expect(children.every((span) => span.status.code !== SpanStatusCode.ERROR)).toBe(true);
    expect(named(children, SPAN_NAMES.authorize)!.attributes[SPAN_ATTRIBUTES.tool]).toBe('getCustomer');
    expect(named(children, SPAN_NAMES.budgetReserve)!.attributes[SPAN_ATTRIBUTES.tokensReserved]).toBe(
      getCustomer.maxResponseTokens,
    );
    expect(named(children, SPAN_NAMES.cacheLookup)!.attributes[SPAN_ATTRIBUTES.cacheResult]).toBe('miss');
    expect(named(children, SPAN_NAMES.forward)!.attributes).toMatchObject({
      [SPAN_ATTRIBUTES.httpMethod]: 'GET',
      [SPAN_ATTRIBUTES.httpStatus]: 200,
    });
    expect(named(children, SPAN_NAMES.cap)!.attributes[SPAN_ATTRIBUTES.truncated]).toBe(false);
    expect(named(children, SPAN_NAMES.budgetSettle)!.attributes[SPAN_ATTRIBUTES.tokensCharged]).toBe(
      settled.value.tokensCharged,
    );
  });

  it('injects the trace context into the downstream request, parented on the forward span', async () => {
    const { deps, close } = setup();
    const { parent } = await underParent(() => callTool(deps, caller(), read));
    await close();

    const forward = named(childrenOf(parent), SPAN_NAMES.forward)!;
    expect(seen).toHaveLength(1);
    const [version, traceId, parentId, flags] = String(seen[0]!.traceparent).split('-');
    expect(version).toBe('00');
    expect(traceId).toBe(parent.spanContext().traceId);
    expect(parentId).toBe(forward.spanContext().spanId);
    expect(flags).toBe('01');
  });

  it('records a cache hit on the lookup span and asks nobody downstream', async () => {
    const { deps, cache, close } = setup();
    await underParent(() => callTool(deps, caller(), read));
    await cache.idle();
    exporter.reset();
    const { parent } = await underParent(() => callTool(deps, caller(), read));
    await close();

    const children = childrenOf(parent);
    expect(named(children, SPAN_NAMES.cacheLookup)!.attributes[SPAN_ATTRIBUTES.cacheResult]).toBe('exact');
    expect(named(children, SPAN_NAMES.forward)).toBeUndefined();
    expect(seen).toHaveLength(1);
  });

  it('marks the refusing step failed and stops there when the budget is spent', async () => {
    const { deps, budget, close } = setup();
    const spent = await budget.reserve('agt_test', 100, 100, NOW);
    if (!spent.ok) throw new Error('setup reservation failed');
    await budget.settle(spent.reservation, 100);

    const { parent, settled } = await underParent(() => callTool(deps, caller({ dailyTokenBudget: 100 }), read));
    await close();

    expect(settled.status).toBe('rejected');
    const children = childrenOf(parent);
    expect(children.map((span) => span.name)).toEqual([
      SPAN_NAMES.authorize,
      SPAN_NAMES.validate,
      SPAN_NAMES.budgetReserve,
    ]);
    const reserve = named(children, SPAN_NAMES.budgetReserve)!;
    expect(reserve.status).toEqual({ code: SpanStatusCode.ERROR, message: 'Daily token budget exhausted' });
    expect(reserve.attributes[SPAN_ATTRIBUTES.errorType]).toBe('BudgetExhaustedError');
    expect(reserve.events.map((event) => event.name)).toEqual(['exception']);
    expect(seen).toHaveLength(0);
  });

  it('does not name a refused tool: the name is caller input', async () => {
    const { deps, close } = setup();
    const { parent } = await underParent(() => callTool(deps, caller(), { name: 'createOrder', arguments: {} }));
    await close();

    const [authorize, ...rest] = childrenOf(parent);
    expect(rest).toEqual([]);
    expect(authorize!.name).toBe(SPAN_NAMES.authorize);
    expect(authorize!.status.code).toBe(SpanStatusCode.ERROR);
    expect(authorize!.attributes[SPAN_ATTRIBUTES.tool]).toBeUndefined();
  });

  it('records the downstream status of a failed forward', async () => {
    const { deps, close } = setup();
    downstreamStatus = 503;
    const { parent } = await underParent(() => callTool(deps, caller(), read));
    await close();

    const forward = named(childrenOf(parent), SPAN_NAMES.forward)!;
    expect(forward.status.code).toBe(SpanStatusCode.ERROR);
    expect(forward.attributes).toMatchObject({
      [SPAN_ATTRIBUTES.httpStatus]: 503,
      [SPAN_ATTRIBUTES.downstreamFailure]: 'status',
      [SPAN_ATTRIBUTES.errorType]: 'DownstreamCallError',
    });
  });

  it('never puts argument values or response content in a span', async () => {
    const { deps, close } = setup();
    await underParent(() => callTool(deps, caller(), read));
    await underParent(() =>
      callTool(deps, caller(), { name: 'getCustomer', arguments: { id: SECRET_ID, expand: 'not-a-boolean' } }),
    );
    await close();

    const recorded = JSON.stringify(
      exporter
        .getFinishedSpans()
        .map((span) => ({ attributes: span.attributes, events: span.events, status: span.status })),
    );
    expect(recorded).toContain('getCustomer');
    expect(recorded).not.toContain(SECRET_ID);
    expect(recorded).not.toContain('ada@example.com');
    expect(recorded).not.toContain('not-a-boolean');
  });

  it('records nothing and sends no traceparent without a recording parent span', async () => {
    const { deps, close } = setup();
    const outcome = await callTool(deps, caller(), read);
    await close();

    expect(outcome.downstreamStatus).toBe(200);
    expect(exporter.getFinishedSpans()).toEqual([]);
    expect(seen[0]!.traceparent).toBeUndefined();
  });
});
