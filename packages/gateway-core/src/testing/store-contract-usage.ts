/**
 * The contract of the usage counters, run by `describeStoreContract` against
 * every adapter: what is added is read back summed per hour and identity,
 * within the range and agent asked for, and nothing past retention.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { StoreOptions } from '../store/options.js';
import type { GatewayStore } from '../store/ports.js';
import { DAY_MS, emptyLatency, HOUR_MS, hourStart, type UsageCell } from '../store/usage-records.js';

type Factory = (options: StoreOptions) => Promise<GatewayStore>;

function cell(overrides: Partial<UsageCell> = {}): UsageCell {
  const latency = emptyLatency();
  latency[3] = 1;
  return {
    hour: hourStart(Date.now()),
    agentId: 'agt_a',
    tool: 'orders_list',
    downstream: 'shop',
    outcome: 'ok',
    calls: 1,
    tokens: 10,
    cacheHits: 0,
    latencyMsSum: 40,
    latency,
    ...overrides,
  };
}

const byIdentity = (cells: UsageCell[]) =>
  [...cells].sort(
    (a, b) => a.hour - b.hour || `${a.agentId}${a.tool}${a.outcome}`.localeCompare(`${b.agentId}${b.tool}${b.outcome}`),
  );

export function describeUsageContract(createStore: Factory): void {
  describe('usage counters', () => {
    const open: GatewayStore[] = [];
    const usage = async (options: StoreOptions = {}) => {
      const store = await createStore(options);
      open.push(store);
      return store.usage;
    };
    afterEach(async () => {
      await Promise.all(open.splice(0).map((s) => s.close()));
    });
    const now = hourStart(Date.now());
    const everything = { from: now - 3 * DAY_MS, to: now + HOUR_MS };

    it('reads back what was added, the same identity summed across adds and within one', async () => {
      const store = await usage();
      const slow = emptyLatency();
      slow[8] = 2;
      await store.add([cell(), cell({ tokens: 5, latencyMsSum: 900, latency: slow, calls: 2 })]);
      await store.add([cell({ outcome: 'cache-hit', cacheHits: 1, tokens: 0 })]);
      const read = byIdentity(await store.read(everything));
      expect(read).toEqual([
        cell({ outcome: 'cache-hit', cacheHits: 1, tokens: 0 }),
        {
          ...cell(),
          calls: 3,
          tokens: 15,
          latencyMsSum: 940,
          latency: emptyLatency().map((_, i) => (i === 3 ? 1 : i === 8 ? 2 : 0)),
        },
      ]);
    });

    it('keeps hours, agents, tools and downstreams apart, and answers only the range and agent asked for', async () => {
      const store = await usage();
      const cells = [
        cell(),
        cell({ hour: now - HOUR_MS }),
        cell({ hour: now - DAY_MS - 5 * HOUR_MS }),
        cell({ agentId: 'agt_b', tool: 'orders_get', downstream: 'billing' }),
        cell({ agentId: '', tool: '', downstream: '', outcome: 'unauthorized', tokens: 0 }),
      ];
      await store.add(cells);
      expect(byIdentity(await store.read(everything))).toEqual(byIdentity(cells));
      expect(byIdentity(await store.read({ from: now - HOUR_MS, to: now }))).toEqual([cells[1]]);
      expect(byIdentity(await store.read({ ...everything, agentId: 'agt_b' }))).toEqual([cells[3]]);
      expect(byIdentity(await store.read({ from: now - 2 * DAY_MS, to: now - DAY_MS }))).toEqual([cells[2]]);
    });

    it('answers an empty range with nothing', async () => {
      const store = await usage();
      expect(await store.read(everything)).toEqual([]);
    });

    it('keeps whole days within retention and nothing older', async () => {
      const store = await usage({ usageRetentionDays: 2 });
      const yesterday = cell({ hour: now - DAY_MS });
      await store.add([yesterday, cell({ hour: now - 4 * DAY_MS, agentId: 'agt_old' })]);
      expect(await store.read({ from: now - 10 * DAY_MS, to: now + HOUR_MS })).toEqual([yesterday]);
    });

    it('stays exact under concurrent adds of the same cell', async () => {
      const store = await usage();
      await Promise.all(Array.from({ length: 20 }, () => store.add([cell(), cell({ agentId: 'agt_b' })])));
      const read = await store.read(everything);
      expect(read.map((c) => [c.agentId, c.calls, c.tokens])).toEqual(
        expect.arrayContaining([
          ['agt_a', 20, 200],
          ['agt_b', 20, 200],
        ]),
      );
    });
  });
}
