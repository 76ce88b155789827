import { describe, expect, it } from 'vitest';
import type { ForwardOptions, Forwarder } from '../forward/forwarder.js';
import { callTool } from '../pipeline/tool-call.js';
import { createMemoryStore } from '../store/memory/index.js';
import { createOrder, testAgent } from '../testing/tool-fixtures.js';
import { buildToolRegistry } from '../tools/registry.js';

const NOW = new Date('2025-05-01T12:00:00Z');
const { registry } = buildToolRegistry([createOrder]);

/** What the pipeline tells the forwarder about each call: what the assertion is signed from. */
function recordingForwarder() {
  const told: Array<ForwardOptions | undefined> = [];
  const forwarder: Forwarder = {
    forward: async (_tool, _args, _signal, options) => {
      told.push(options);
      return { status: 200, headers: {}, body: { ok: true }, durationMs: 1 };
    },
  };
  return { forwarder, told };
}

describe('what the pipeline hands the forwarder for the assertion', () => {
  it('names the agent, the scopes granted (in the token and still held by the agent) and a new call id per call', async () => {
    const { forwarder, told } = recordingForwarder();
    const deps = { registry: () => registry, budget: createMemoryStore().budget, forwarder, clock: () => NOW };
    const caller = {
      agent: testAgent({ scopes: ['orders:write', 'orders:read', 'customers:read'] }, NOW),
      // customers:read is not in the token; admin is no longer the agent's.
      tokenScopes: ['orders:write', 'orders:read', 'admin'],
      protocolVersion: '2025-06-18' as const,
    };
    const args = { customerId: 'c1', sku: 'KB-100', quantity: 1 };
    for (let call = 0; call < 2; call++)
      expect((await callTool(deps, caller, { name: 'createOrder', arguments: args })).ok).toBe(true);
    expect(told).toEqual([
      {
        agentId: 'agt_test',
        scopes: ['orders:write', 'orders:read'],
        callId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      },
      {
        agentId: 'agt_test',
        scopes: ['orders:write', 'orders:read'],
        callId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      },
    ]);
    expect(told[0]!.callId).not.toBe(told[1]!.callId);
  });

  it('reports the call id, so the audit record joins the downstream log that names it; none when the call never left', async () => {
    const { forwarder, told } = recordingForwarder();
    const deps = { registry: () => registry, budget: createMemoryStore().budget, forwarder, clock: () => NOW };
    const caller = {
      agent: testAgent({ scopes: ['orders:write'] }, NOW),
      tokenScopes: ['orders:write'],
      protocolVersion: '2025-06-18' as const,
    };
    const sent = await callTool(deps, caller, {
      name: 'createOrder',
      arguments: { customerId: 'c1', sku: 'KB-100', quantity: 1 },
    });
    expect(sent.callId).toBe(told[0]!.callId);
    const refused = await callTool(deps, caller, { name: 'createOrder', arguments: { customerId: 'c1' } });
    expect(refused.ok).toBe(false);
    expect(refused.callId).toBeUndefined();
  });
});
