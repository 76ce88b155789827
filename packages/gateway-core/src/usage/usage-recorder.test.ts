import { describe, expect, it } from 'vitest';
import type { AuditEvent } from '../audit/trail.js';
import { createMemoryStore } from '../store/memory/index.js';
import type { UsageStore } from '../store/ports.js';
import { HOUR_MS, type UsageCell } from '../store/usage-records.js';
import { UsageRecorder } from './usage-recorder.js';

const AT = Date.parse('2030-01-01T10:20:00.000Z');

function call(overrides: Partial<AuditEvent> = {}): AuditEvent {
  return {
    kind: 'tool-call',
    outcome: 'ok',
    agentId: 'agt_a',
    tool: 'shop_list',
    downstream: 'shop',
    tokensCharged: 10,
    gatewayMs: 2,
    downstreamMs: 30,
    ...overrides,
  };
}

const everything = { from: AT - 24 * HOUR_MS, to: AT + 24 * HOUR_MS };

describe('UsageRecorder', () => {
  it('adds calls of one hour and identity into one cell, and leaves management events out', async () => {
    const store = createMemoryStore({ clock: () => AT });
    const recorder = new UsageRecorder({ store: store.usage, clock: () => AT });
    recorder.record(call());
    recorder.record(call({ outcome: 'cache-hit', tokensCharged: 0, downstreamMs: null }));
    recorder.record(call({ tokensCharged: 5, downstreamMs: 800 }));
    recorder.record({ kind: 'management', outcome: 'agent.created', agentId: 'agt_a' });
    recorder.record(call({ time: new Date(AT - HOUR_MS).toISOString() }));
    await recorder.flush();
    const cells = await store.usage.read(everything);
    const ok = cells.find((c) => c.outcome === 'ok' && c.hour === Date.parse('2030-01-01T10:00:00.000Z'))!;
    expect(ok).toMatchObject({ calls: 2, tokens: 15, cacheHits: 0, latencyMsSum: 32 + 802 });
    expect(ok.latency.reduce((a, b) => a + b, 0)).toBe(2);
    expect(cells.find((c) => c.outcome === 'cache-hit')).toMatchObject({ calls: 1, cacheHits: 1, tokens: 0 });
    expect(cells.find((c) => c.hour === Date.parse('2030-01-01T09:00:00.000Z'))).toMatchObject({ calls: 1 });
    expect(cells.reduce((sum, c) => sum + c.calls, 0)).toBe(4);
  });

  it('sends a refused write again as it was, under the same write id, and later calls in a write of their own', async () => {
    const inner = createMemoryStore({ clock: () => AT }).usage;
    const sent: Array<{ writeId: string | undefined; calls: number }> = [];
    let failNext = true;
    const flaky: UsageStore = {
      read: (range) => inner.read(range),
      async add(cells, writeId) {
        sent.push({ writeId, calls: cells.reduce((sum, c) => sum + c.calls, 0) });
        if (failNext) {
          failNext = false;
          throw new Error('store did not answer');
        }
        return inner.add(cells);
      },
    };
    const errors: unknown[] = [];
    const recorder = new UsageRecorder({ store: flaky, clock: () => AT, onError: (error) => errors.push(error) });
    recorder.record(call());
    recorder.record(call({ agentId: 'agt_b' }));
    await recorder.flush();
    expect(errors).toHaveLength(1);
    expect(recorder.pending).toBe(2);
    recorder.record(call({ agentId: 'agt_b' }));
    await recorder.flush();
    expect(recorder.pending).toBe(0);
    expect(sent.map((write) => write.calls)).toEqual([2, 2, 1]);
    expect(sent[1]!.writeId).toBe(sent[0]!.writeId);
    expect(sent[2]!.writeId).not.toBe(sent[0]!.writeId);
    const calls = (agentId: string) =>
      inner.read({ ...everything, agentId }).then((cells: UsageCell[]) => cells.reduce((sum, c) => sum + c.calls, 0));
    expect([await calls('agt_a'), await calls('agt_b')]).toEqual([1, 2]);
  });

  it('drops and counts calls past its cap of pending cells while the store fails', async () => {
    const down: UsageStore = { read: async () => [], add: async () => Promise.reject(new Error('down')) };
    const recorder = new UsageRecorder({ store: down, clock: () => AT, maxCells: 2 });
    for (const agentId of ['agt_a', 'agt_b', 'agt_c']) recorder.record(call({ agentId }));
    recorder.record(call({ agentId: 'agt_a' }));
    expect([recorder.pending, recorder.dropped]).toEqual([2, 1]);
    await recorder.flush();
    expect(recorder.pending).toBe(2);
  });
});
