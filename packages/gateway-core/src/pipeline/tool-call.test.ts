import { describe, expect, it } from 'vitest';
import {
  BudgetExhaustedError,
  ClientGoneError,
  DownstreamCallError,
  ForbiddenError,
  InvalidInputError,
} from '../errors.js';
import type { Forwarder, ForwardResult } from '../forward/forwarder.js';
import { createMemoryStore } from '../store/memory/index.js';
import type { AgentRecord, BudgetLedger } from '../store/ports.js';
import { capResponse } from '../tokens/cap.js';
import { countTokens } from '../tokens/count.js';
import type { ToolDefinition } from '../tools/definition.js';
import { buildToolRegistry } from '../tools/registry.js';
import { archiveCustomer, createOrder, getCustomer, testAgent } from '../testing/tool-fixtures.js';
import { SemanticCache } from '../cache/semantic-cache.js';
import { SettlementQueue } from './settlement-queue.js';
import { callToolOrThrow as callTool } from '../testing/call-tool.js';
import { callTool as reportToolCall } from './tool-call.js';
import type { ToolCallContext, ToolCallDeps } from './tool-call-deps.js';

const NOW = new Date('2025-05-01T12:00:00Z');
const { registry } = buildToolRegistry([getCustomer, createOrder, archiveCustomer]);

interface ForwardedCall {
  tool: string;
  args: Record<string, unknown>;
  /** Tokens the ledger held for the agent while the call was in flight. */
  reservedDuringCall: number;
}

/**
 * A Forwarder that answers from a function and records what it was asked,
 * including what the ledger held at that moment: the reservation itself.
 */
function fakeForwarder(budget: BudgetLedger, answer: (tool: ToolDefinition) => unknown | Promise<unknown>) {
  const calls: ForwardedCall[] = [];
  const forwarder: Forwarder = {
    async forward(tool, args): Promise<ForwardResult> {
      const usage = await budget.usage('agt_test', NOW);
      calls.push({ tool: tool.name, args, reservedDuringCall: usage.reserved });
      return { status: 200, headers: {}, body: await answer(tool), durationMs: 1 };
    },
  };
  return { forwarder, calls };
}

function setup(answer: (tool: ToolDefinition) => unknown | Promise<unknown> = () => ({ id: '7', name: 'Ada' })) {
  const store = createMemoryStore();
  const { forwarder, calls } = fakeForwarder(store.budget, answer);
  const deps: ToolCallDeps = { registry: () => registry, budget: store.budget, forwarder, clock: () => NOW };
  const usage = () => store.budget.usage('agt_test', NOW);
  return { deps, calls, usage, budget: store.budget };
}

function agent(overrides: Partial<AgentRecord> = {}): AgentRecord {
  return testAgent(overrides, NOW);
}

function caller(overrides: Partial<ToolCallContext> = {}): ToolCallContext {
  return { agent: agent(), tokenScopes: [], protocolVersion: '2024-11-05', ...overrides };
}

/** A caller allowed createOrder: the scope in both the agent record and the token. */
function writer(overrides: Partial<AgentRecord> = {}): ToolCallContext {
  return caller({ agent: agent({ scopes: ['orders:write'], ...overrides }), tokenScopes: ['orders:write'] });
}

/** An answer far over any cap used here: 400 customers. */
const bigAnswer = () => ({
  customers: Array.from({ length: 400 }, (_, i) => ({ id: i, name: `Customer number ${i}`, city: 'Lisbon' })),
});

describe('callTool when the client goes away', () => {
  it('charges nothing for an answer that came after the client left, and reports client-gone', async () => {
    const left = new AbortController();
    const { deps, usage } = setup(() => {
      left.abort();
      return { id: '7', name: 'Ada' };
    });
    const report = await reportToolCall(deps, caller({ signal: left.signal }), {
      name: 'getCustomer',
      arguments: { id: '7' },
    });
    expect(report).toMatchObject({ ok: false, tokensCharged: 0, tool: 'getCustomer' });
    expect(report.ok ? null : report.error).toBeInstanceOf(ClientGoneError);
    expect(await usage()).toMatchObject({ used: 0, reserved: 0 });
  });

  it('reports a forward cancelled by the client as client-gone, not a downstream error', async () => {
    const left = new AbortController();
    const { deps, usage } = setup(() => {
      left.abort();
      throw new DownstreamCallError('Call to tool getCustomer was cancelled', { reason: 'aborted' });
    });
    const report = await reportToolCall(deps, caller({ signal: left.signal }), {
      name: 'getCustomer',
      arguments: { id: '7' },
    });
    expect(report.ok ? null : report.error).toBeInstanceOf(ClientGoneError);
    expect(await usage()).toMatchObject({ used: 0, reserved: 0 });
  });
});

describe('callTool', () => {
  it('forwards the validated arguments and returns the response as JSON text', async () => {
    const { deps, calls } = setup();
    const outcome = await callTool(deps, caller(), { name: 'getCustomer', arguments: { id: '7' } });
    expect(calls.map(({ tool, args }) => ({ tool, args }))).toEqual([{ tool: 'getCustomer', args: { id: '7' } }]);
    expect(outcome.result).toEqual({ content: [{ type: 'text', text: '{"id":"7","name":"Ada"}' }] });
    expect(outcome.truncated).toBe(false);
    expect(outcome.downstreamStatus).toBe(200);
  });

  it('adds structuredContent for clients on 2025-06-18', async () => {
    const { deps } = setup();
    const outcome = await callTool(deps, caller({ protocolVersion: '2025-06-18' }), {
      name: 'getCustomer',
      arguments: { id: '7' },
    });
    expect(outcome.result.structuredContent).toEqual({ id: '7', name: 'Ada' });
  });

  it('charges exactly the tokens of the text returned and holds nothing afterwards', async () => {
    const { deps, usage } = setup();
    const outcome = await callTool(deps, caller(), { name: 'getCustomer', arguments: { id: '7' } });
    const text = outcome.result.content[0].text;
    expect(outcome.tokensCharged).toBe(countTokens(text));
    expect(await usage()).toMatchObject({ used: countTokens(text), reserved: 0 });
  });

  it('charges exactly the capped tokens when the response is cut to maxResponseTokens', async () => {
    const { deps, usage } = setup(bigAnswer);
    const outcome = await callTool(deps, writer(), {
      name: 'createOrder',
      arguments: { customerId: '1', sku: 'A', quantity: 1 },
    });
    const text = outcome.result.content[0].text;
    expect(outcome.truncated).toBe(true);
    expect(() => JSON.parse(text)).not.toThrow();
    expect(countTokens(text)).toBeLessThanOrEqual(createOrder.maxResponseTokens);
    expect(outcome.tokensCharged).toBe(countTokens(text));
    expect(await usage()).toMatchObject({ used: countTokens(text), reserved: 0 });
  });

  it("reserves the tool's cap when the budget has more left", async () => {
    const { deps, calls } = setup();
    await callTool(deps, caller(), { name: 'getCustomer', arguments: { id: '7' } });
    expect(calls[0]!.reservedDuringCall).toBe(getCustomer.maxResponseTokens);
  });

  it('reserves only what is left today, and cuts the response to fit it', async () => {
    const { deps, calls, budget, usage } = setup(bigAnswer);
    const spent = await budget.reserve('agt_test', 1000, 900, NOW);
    if (!spent.ok) throw new Error('setup reservation failed');
    await budget.settle(spent.reservation, 900);

    const outcome = await callTool(deps, caller({ agent: agent({ dailyTokenBudget: 1000 }) }), {
      name: 'getCustomer',
      arguments: { id: '7' },
    });
    expect(calls[0]!.reservedDuringCall).toBe(100);
    expect(outcome.truncated).toBe(true);
    expect(outcome.tokensCharged).toBeLessThanOrEqual(100);
    expect(outcome.tokensCharged).toBe(countTokens(outcome.result.content[0].text));
    expect((await usage()).used).toBe(900 + outcome.tokensCharged);
  });

  it('refuses with 429 when nothing is left, without forwarding', async () => {
    const { deps, calls, budget } = setup();
    const spent = await budget.reserve('agt_test', 50, 50, NOW);
    if (!spent.ok) throw new Error('setup reservation failed');
    await budget.settle(spent.reservation, 50);

    const call = callTool(deps, caller({ agent: agent({ dailyTokenBudget: 50 }) }), {
      name: 'getCustomer',
      arguments: { id: '7' },
    });
    await expect(call).rejects.toBeInstanceOf(BudgetExhaustedError);
    await expect(call).rejects.toMatchObject({
      httpStatus: 429,
      jsonRpcCode: -32029,
      resetsAt: '2025-05-02T00:00:00.000Z',
    });
    expect(calls).toEqual([]);
  });

  it('releases the reservation when the downstream answers an error', async () => {
    const { deps, usage } = setup(() => {
      throw new DownstreamCallError('Downstream answered 404', { reason: 'status', downstreamStatus: 404 });
    });
    await expect(callTool(deps, caller(), { name: 'getCustomer', arguments: { id: '404' } })).rejects.toMatchObject({
      httpStatus: 502,
      jsonRpcCode: -32002,
      data: { reason: 'status', downstreamStatus: 404 },
    });
    expect(await usage()).toMatchObject({ used: 0, reserved: 0 });
  });

  it('traces the status and time of a downstream error, for the audit record', async () => {
    const { deps } = setup(async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      throw new DownstreamCallError('Downstream answered 404', { reason: 'status', downstreamStatus: 404 });
    });
    const report = await reportToolCall(deps, caller(), { name: 'getCustomer', arguments: { id: '404' } });
    expect(report.ok || report.error).toBeInstanceOf(DownstreamCallError);
    expect(report).toMatchObject({
      tool: 'getCustomer',
      downstreamStatus: 404,
      argsDigest: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(report.downstreamMs).toBeGreaterThanOrEqual(4);
  });

  it('releases the reservation when forwarding fails unexpectedly', async () => {
    const { deps, usage } = setup(() => {
      throw new TypeError('socket hang up');
    });
    await expect(callTool(deps, caller(), { name: 'getCustomer', arguments: { id: '7' } })).rejects.toThrow(
      'socket hang up',
    );
    expect(await usage()).toMatchObject({ used: 0, reserved: 0 });
  });

  it('releases the reservation when the response cannot be turned into a result', async () => {
    // JSON.stringify throws on a BigInt: the failure happens after forwarding, before settling.
    const { deps, usage } = setup(() => ({ big: 1n }));
    await expect(callTool(deps, caller(), { name: 'getCustomer', arguments: { id: '7' } })).rejects.toThrow(TypeError);
    expect(await usage()).toMatchObject({ used: 0, reserved: 0 });
  });

  it('refuses invalid arguments with -32602 before reserving or forwarding', async () => {
    const { deps, calls, usage } = setup();
    const call = callTool(deps, caller(), { name: 'getCustomer', arguments: { id: 7, extra: true } });
    await expect(call).rejects.toBeInstanceOf(InvalidInputError);
    await expect(call).rejects.toMatchObject({
      jsonRpcCode: -32602,
      fields: expect.arrayContaining([
        { path: 'id', message: 'must be string' },
        { path: 'extra', message: 'is not an input of this tool' },
      ]),
    });
    expect(calls).toEqual([]);
    expect(await usage()).toMatchObject({ used: 0, reserved: 0 });
  });

  it('refuses an unknown tool with -32602', async () => {
    const { deps, calls } = setup();
    await expect(callTool(deps, caller(), { name: 'dropDatabase' })).rejects.toMatchObject({ jsonRpcCode: -32602 });
    await expect(callTool(deps, caller(), { name: 42 })).rejects.toBeInstanceOf(InvalidInputError);
    expect(calls).toEqual([]);
  });

  it('needs each required scope in both the token and the agent record of this call', async () => {
    const { deps, calls } = setup();
    const order = { name: 'createOrder', arguments: { customerId: '1', sku: 'A', quantity: 1 } };

    const recordOnly = caller({ agent: agent({ scopes: ['orders:write'] }), tokenScopes: [] });
    await expect(callTool(deps, recordOnly, order)).rejects.toThrow(/the token does not carry: orders:write$/);
    // A scope removed from the agent after the token was issued.
    const tokenOnly = caller({ agent: agent({ scopes: [] }), tokenScopes: ['orders:write'] });
    await expect(callTool(deps, tokenOnly, order)).rejects.toMatchObject({
      httpStatus: 403,
      jsonRpcCode: -32003,
      message: expect.stringMatching(/the agent does not hold: orders:write$/),
    });
    expect(calls).toEqual([]);

    await expect(callTool(deps, writer(), order)).resolves.toMatchObject({ downstreamStatus: 200 });
    expect(calls.map((call) => call.tool)).toEqual(['createOrder']);
  });

  it('refuses tools outside the allowlist and blocked writes with 403 before reserving', async () => {
    const { deps, calls, usage } = setup();
    const allowlisted = caller({ agent: agent({ allowedTools: ['createOrder'] }) });
    await expect(callTool(deps, allowlisted, { name: 'getCustomer', arguments: { id: '7' } })).rejects.toMatchObject({
      httpStatus: 403,
      jsonRpcCode: -32003,
    });
    await expect(callTool(deps, caller(), { name: 'archiveCustomer', arguments: { id: '7' } })).rejects.toThrow(
      /does not allow writes/,
    );
    expect(calls).toEqual([]);
    expect(await usage()).toMatchObject({ used: 0, reserved: 0 });
  });

  it('traces the tool a refused call named, when the registry knows it, and never an unknown name', async () => {
    const { deps } = setup();
    const refused = await reportToolCall(deps, caller(), { name: 'createOrder', arguments: { customerId: '1' } });
    expect(refused.ok || refused.error).toBeInstanceOf(ForbiddenError);
    const { ok: _ok, error: _error, ...facts } = refused as { ok: false; error: unknown };
    expect(facts).toEqual({
      tool: 'createOrder',
      argsDigest: expect.stringMatching(/^[0-9a-f]{64}$/),
      cacheTier: null,
      downstreamStatus: null,
      downstreamMs: null,
      tokensCharged: 0,
      downstreamAnswer: null,
    });
    const unknown = await reportToolCall(deps, caller(), { name: 'dropDatabase' });
    expect(unknown.ok || unknown.error).toBeInstanceOf(InvalidInputError);
    expect(unknown.tool).toBeNull();
  });

  it('never lets concurrent calls spend past the budget', async () => {
    const { deps, usage } = setup(bigAnswer);
    const budgetAgent = { dailyTokenBudget: 1000 };
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, () =>
        callTool(deps, writer(budgetAgent), {
          name: 'createOrder',
          arguments: { customerId: '1', sku: 'A', quantity: 1 },
        }),
      ),
    );
    const charged = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value.tokensCharged] : []));
    const refused = results.flatMap((result) => (result.status === 'rejected' ? [result.reason] : []));
    expect(refused.length).toBeGreaterThan(0);
    for (const reason of refused) expect(reason).toBeInstanceOf(BudgetExhaustedError);
    const total = charged.reduce((sum, tokens) => sum + tokens, 0);
    expect(total).toBeLessThanOrEqual(1000);
    expect(await usage()).toMatchObject({ used: total, reserved: 0 });
  });
});

describe('callTool settling after the reply (settlements given)', () => {
  function deferred(answer?: (tool: ToolDefinition) => unknown | Promise<unknown>) {
    const base = setup(answer);
    const settlements = new SettlementQueue({ ledger: base.budget });
    return { ...base, settlements, deps: { ...base.deps, settlements } };
  }

  it('returns before the charge lands, holding the reservation until it does, then charges exactly the tokens returned', async () => {
    const { deps, usage, settlements } = deferred();
    const outcome = await callTool(deps, caller(), { name: 'getCustomer', arguments: { id: '7' } });
    expect(await usage()).toMatchObject({ used: 0, reserved: getCustomer.maxResponseTokens });
    await settlements.settled('agt_test');
    expect(await usage()).toMatchObject({ used: outcome.tokensCharged, reserved: 0 });
    expect(outcome.tokensCharged).toBe(countTokens(outcome.result.content[0].text));
  });

  it('releases the reservation of a failed call after the reply', async () => {
    const { deps, usage, settlements } = deferred(() => {
      throw new TypeError('socket hang up');
    });
    await expect(callTool(deps, caller(), { name: 'getCustomer', arguments: { id: '7' } })).rejects.toThrow(
      'socket hang up',
    );
    await settlements.settled('agt_test');
    expect(await usage()).toMatchObject({ used: 0, reserved: 0 });
  });

  it('never lets concurrent calls spend past the budget', async () => {
    const { deps, usage, settlements } = deferred(bigAnswer);
    const budgetAgent = { dailyTokenBudget: 1000 };
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, () =>
        callTool(deps, writer(budgetAgent), {
          name: 'createOrder',
          arguments: { customerId: '1', sku: 'A', quantity: 1 },
        }),
      ),
    );
    await settlements.settled('agt_test');
    const total = results.reduce(
      (sum, result) => sum + (result.status === 'fulfilled' ? result.value.tokensCharged : 0),
      0,
    );
    expect(results.some((result) => result.status === 'rejected')).toBe(true);
    expect(total).toBeLessThanOrEqual(1000);
    expect(await usage()).toMatchObject({ used: total, reserved: 0 });
  });
});

describe('callTool with the response cache and a privacy filter', () => {
  function cached() {
    const store = createMemoryStore();
    const { forwarder, calls } = fakeForwarder(store.budget, (tool) =>
      tool.name === 'getCustomer' ? { id: '7', email: 'ada@example.com' } : { ok: true },
    );
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
    return { deps, calls, cache, usage: () => store.budget.usage('agt_test', NOW) };
  }
  const read = { name: 'getCustomer', arguments: { id: '7' } };

  it('answers a repeated read from the cache, filtered, and charges it like a call', async () => {
    const { deps, calls, cache, usage } = cached();
    const first = await callTool(deps, caller(), read);
    await cache.idle();
    const second = await callTool(deps, caller(), read);
    expect(calls).toHaveLength(1);
    expect(second.cacheTier).toBe('exact');
    expect(second.result).toEqual(first.result);
    expect(first.result.content[0].text).toBe('{"id":"7","email":"[REDACTED:email]"}');
    expect((await usage()).used).toBe(first.tokensCharged * 2);
    expect(second).toMatchObject({ tool: 'getCustomer', cacheTier: 'exact', tokensCharged: first.tokensCharged });
  });

  it("never answers one agent from another agent's cached call", async () => {
    const { deps, calls, cache } = cached();
    await callTool(deps, caller(), read);
    await cache.idle();
    const other = await callTool(deps, caller({ agent: agent({ agentId: 'agt_other' }) }), read);
    expect(other.cacheTier).toBeNull();
    expect(calls.map((call) => call.tool)).toEqual(['getCustomer', 'getCustomer']);
    await cache.idle();
    expect((await callTool(deps, caller({ agent: agent({ agentId: 'agt_other' }) }), read)).cacheTier).toBe('exact');
  });

  it('serializes an answer once, for the cache and the cap alike, and a cached one not at all', async () => {
    const { deps, cache } = cached();
    let serialized = 0;
    // The privacy filter's output, with a toJSON that counts each time it is serialized.
    const counted = {
      filter: (_tool: string, value: unknown) => ({
        value: { ...(value as object), toJSON: () => (serialized++, { id: '7', email: '[REDACTED:email]' }) },
      }),
    };
    const withCounter: ToolCallDeps = { ...deps, privacy: counted };
    const first = await callTool(withCounter, caller(), read);
    await cache.idle();
    expect(serialized).toBe(1);
    const second = await callTool(withCounter, caller(), read);
    expect(second.cacheTier).toBe('exact');
    expect(serialized).toBe(1);
    expect(second.ok && first.ok && second.result.content[0].text).toBe(first.ok && first.result.content[0].text);
    expect(second.tokensCharged).toBe(first.tokensCharged);
  });

  it('serves a cached answer as its stored text, and cuts it to what is left today as the cap cuts any answer', async () => {
    const store = createMemoryStore();
    // About 400 tokens: within getCustomer's cap, over the 100 left below.
    const answer = () => ({
      customers: Array.from({ length: 40 }, (_, i) => ({ id: i, name: `Customer number ${i}` })),
    });
    const { forwarder, calls } = fakeForwarder(store.budget, answer);
    const cache = new SemanticCache({ cache: store.cache });
    const deps: ToolCallDeps = { registry: () => registry, budget: store.budget, forwarder, cache, clock: () => NOW };
    const modern = { protocolVersion: '2025-06-18' as const };
    const first = await callTool(deps, caller(modern), read);
    await cache.idle();
    const whole = await callTool(deps, caller(modern), read);
    expect(whole).toMatchObject({ cacheTier: 'exact', truncated: false, tokensCharged: first.tokensCharged });
    expect(whole.result).toEqual(first.result);
    expect(JSON.stringify(whole.result)).toBe(JSON.stringify(first.result));

    // Spend all but 100 tokens of the day.
    const rest = 100_000 - 100 - 2 * first.tokensCharged;
    const spent = await store.budget.reserve('agt_test', 100_000, rest, NOW);
    if (!spent.ok) throw new Error('setup reservation failed');
    await store.budget.settle(spent.reservation, rest);
    const cut = await callTool(deps, caller({ ...modern, agent: agent({ dailyTokenBudget: 100_000 }) }), read);
    expect(calls).toHaveLength(1);
    expect(cut).toMatchObject({ cacheTier: 'exact', truncated: true });
    expect(cut.result.content[0].text).toBe(capResponse(JSON.parse(first.result.content[0].text), 100).text);
    expect(cut.result.structuredContent).toEqual(JSON.parse(cut.result.content[0].text));
    expect(cut.tokensCharged).toBe(countTokens(cut.result.content[0].text));
  });

  it('goes back to the downstream after a write through the gateway', async () => {
    const { deps, calls, cache } = cached();
    await callTool(deps, caller(), read);
    await cache.idle();
    await callTool(deps, writer(), { name: 'createOrder', arguments: { customerId: '7', sku: 'A-1', quantity: 1 } });
    const after = await callTool(deps, caller(), read);
    expect(after.cacheTier).toBeNull();
    expect(calls.map((call) => call.tool)).toEqual(['getCustomer', 'createOrder', 'getCustomer']);
  });
});
