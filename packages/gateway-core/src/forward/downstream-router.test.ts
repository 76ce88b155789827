import { describe, expect, it } from 'vitest';
import { CircuitOpenError, DownstreamCallError } from '../errors.js';
import { createResilientForwarder } from '../resilience/resilient-forwarder.js';
import { parseToolDefinitions, type ToolDefinition } from '../tools/definition.js';
import { getCustomer } from '../testing/tool-fixtures.js';
import { DownstreamRouter } from './downstream-router.js';
import type { ForwardResult, Forwarder } from './forwarder.js';

const declared = parseToolDefinitions([getCustomer]).tools[0]!;
const servedBy = (downstream: string, name = declared.name): ToolDefinition => ({
  ...declared,
  name,
  downstream,
  declaredName: declared.name,
});

/** A forwarder that writes down what it was handed and answers or fails as the test says. */
function recording(failing = false) {
  const seen: ToolDefinition[] = [];
  const forwarder: Forwarder = {
    async forward(tool) {
      seen.push(tool);
      if (failing) throw new DownstreamCallError('Downstream unreachable', { reason: 'network', code: 'ECONNREFUSED' });
      return { status: 200, headers: {}, body: { from: tool.downstream }, durationMs: 1 } satisfies ForwardResult;
    },
  };
  return { forwarder, seen };
}

describe('DownstreamRouter', () => {
  it("sends each call to its tool's downstream, naming the tool as that downstream declared it", async () => {
    const orders = recording();
    const billing = recording();
    const router = new DownstreamRouter([
      ['orders', orders.forwarder],
      ['billing', billing.forwarder],
    ]);
    const prefixed = servedBy('billing', 'billing_getCustomer');

    expect((await router.forward(servedBy('orders'), { id: '1' })).body).toEqual({ from: 'orders' });
    expect((await router.forward(prefixed, { id: '2' })).body).toEqual({ from: 'billing' });
    expect(orders.seen.map((tool) => tool.name)).toEqual(['getCustomer']);
    expect(billing.seen.map((tool) => tool.name)).toEqual(['getCustomer']);
    // The declared view is made once per definition, not per call.
    await router.forward(prefixed, { id: '3' });
    expect(billing.seen[1]).toBe(billing.seen[0]);
    expect(prefixed.name).toBe('billing_getCustomer');
  });

  it('sends a tool that names no downstream to the only one, and refuses to guess among several', async () => {
    const only = recording();
    expect((await new DownstreamRouter([['default', only.forwarder]]).forward(declared, { id: '1' })).status).toBe(200);
    const two = new DownstreamRouter([
      ['a', recording().forwarder],
      ['b', recording().forwarder],
    ]);
    await expect(two.forward(declared, { id: '1' })).rejects.toThrow(/No forwarder for downstream undefined/);
    await expect(two.forward(servedBy('gone'), { id: '1' })).rejects.toThrow(/No forwarder for downstream "gone"/);
  });

  it("isolates breakers: one downstream's failures open its circuit and no other's", async () => {
    const down = recording(true);
    const up = recording();
    const breaker = { failureThreshold: 2, breakMs: 60_000 };
    const router = new DownstreamRouter([
      ['down', createResilientForwarder(down.forwarder, { breaker, retry: { retries: 0 } })],
      ['up', createResilientForwarder(up.forwarder, { breaker, retry: { retries: 0 } })],
    ]);
    for (let i = 0; i < 2; i++)
      await expect(router.forward(servedBy('down'), { id: '1' })).rejects.toBeInstanceOf(DownstreamCallError);
    await expect(router.forward(servedBy('down'), { id: '1' })).rejects.toBeInstanceOf(CircuitOpenError);
    expect(down.seen).toHaveLength(2);
    expect(router.get('down')?.breakerState).toBe('open');

    expect((await router.forward(servedBy('up'), { id: '1' })).status).toBe(200);
    expect(router.get('up')?.breakerState).toBe('closed');
    expect([...router.entries()].map(([name, forwarder]) => [name, forwarder.breakerState])).toEqual([
      ['down', 'open'],
      ['up', 'closed'],
    ]);
  });
});
