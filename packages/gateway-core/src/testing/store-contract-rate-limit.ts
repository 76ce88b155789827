/**
 * The contract of the per-agent rate limiter, run by `describeStoreContract`
 * against every adapter. On the wall clock: the Redis adapter reads the
 * server's, the in-memory one the `now` it is given.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { StoreOptions } from '../store/options.js';
import type { AgentRecord, GatewayStore, RateLimit, RateLimiter } from '../store/ports.js';

type Factory = (options: StoreOptions) => Promise<GatewayStore>;

/** One call a second: nothing comes back within a test's few milliseconds. */
const SLOW: RateLimit = { callsPerMinute: 60, burst: 3 };

const take = (limiter: RateLimiter, agentId: string, limit: RateLimit) => limiter.take(agentId, limit, new Date());

async function passed(limiter: RateLimiter, agentId: string, limit: RateLimit, calls: number): Promise<number> {
  let ok = 0;
  for (let i = 0; i < calls; i++) if ((await take(limiter, agentId, limit)).ok) ok++;
  return ok;
}

export function describeRateLimitContract(createStore: Factory): void {
  describe('rate limiter', () => {
    const open: GatewayStore[] = [];
    const limiter = async () => {
      const store = await createStore({});
      open.push(store);
      return store.rateLimits;
    };
    afterEach(async () => {
      await Promise.all(open.splice(0).map((s) => s.close()));
    });

    it('lets a burst through at once, then refuses with the wait until the next call', async () => {
      const rates = await limiter();
      expect(await passed(rates, 'agt_a', SLOW, 3)).toBe(3);
      const refused = await take(rates, 'agt_a', SLOW);
      expect(refused.ok).toBe(false);
      const wait = (refused as { retryAfterMs: number }).retryAfterMs;
      // About a second: the takes themselves took a little of it.
      expect(wait).toBeGreaterThan(500);
      expect(wait).toBeLessThanOrEqual(1000);
      // A refusal counts nothing: the wait does not grow.
      const again = await take(rates, 'agt_a', SLOW);
      expect((again as { retryAfterMs: number }).retryAfterMs).toBeLessThanOrEqual(wait);
    });

    it('keeps each agent to its own limit', async () => {
      const rates = await limiter();
      expect(await passed(rates, 'agt_a', SLOW, 5)).toBe(3);
      expect(await passed(rates, 'agt_b', { callsPerMinute: 60, burst: 1 }, 3)).toBe(1);
      expect(await passed(rates, 'agt_c', SLOW, 2)).toBe(2);
    });

    it('lets one more call through once the wait has passed', async () => {
      const rates = await limiter();
      const limit = { callsPerMinute: 240, burst: 1 }; // one call every 250 ms
      expect((await take(rates, 'agt_a', limit)).ok).toBe(true);
      const refused = await take(rates, 'agt_a', limit);
      expect(refused.ok).toBe(false);
      await sleep((refused as { retryAfterMs: number }).retryAfterMs + 5);
      expect((await take(rates, 'agt_a', limit)).ok).toBe(true);
      expect((await take(rates, 'agt_a', limit)).ok).toBe(false);
    });

    it('forgets an agent once its bucket is full again: a whole burst passes', async () => {
      const rates = await limiter();
      const limit = { callsPerMinute: 600, burst: 2 }; // refilled in 200 ms
      expect(await passed(rates, 'agt_a', limit, 3)).toBe(2);
      await sleep(250);
      expect(await passed(rates, 'agt_a', limit, 3)).toBe(2);
    });

    it('never lets more than the burst through under concurrent takes', async () => {
      const rates = await limiter();
      const limit = { callsPerMinute: 60, burst: 10 };
      const results = await Promise.all(Array.from({ length: 50 }, () => take(rates, 'agt_a', limit)));
      expect(results.filter((r) => r.ok)).toHaveLength(10);
    });

    it('uncounts a call given back, and no more than was taken', async () => {
      const rates = await limiter();
      const limit = { callsPerMinute: 60, burst: 2 };
      await rates.giveBack('agt_a', limit, new Date()); // nothing taken: nothing to give back
      expect(await passed(rates, 'agt_a', limit, 3)).toBe(2);
      await rates.giveBack('agt_a', limit, new Date());
      expect(await passed(rates, 'agt_a', limit, 3)).toBe(1);
      await rates.giveBack('agt_a', limit, new Date());
      await rates.giveBack('agt_a', limit, new Date());
      await rates.giveBack('agt_a', limit, new Date());
      expect(await passed(rates, 'agt_a', limit, 3)).toBe(2);
    });

    it(
      "keeps an agent's limit in its record: created, patched, " + 'cleared; a record written without it reads as null',
      async () => {
        const store = await createStore({});
        open.push(store);
        const { agents } = store;
        const at = '2030-01-01T00:00:00.000Z';
        const base = {
          label: 'x',
          dailyTokenBudget: 1,
          isActive: true,
          allowedTools: null,
          scopes: [],
          externalSubjects: [],
          createdAt: at,
          updatedAt: at,
        };
        await agents.create({ ...base, agentId: 'agt_r', rateLimit: SLOW });
        expect((await agents.get('agt_r'))?.rateLimit).toEqual(SLOW);
        expect((await agents.update('agt_r', { label: 'y' }, at))?.rateLimit).toEqual(SLOW);
        expect((await agents.update('agt_r', { rateLimit: { callsPerMinute: 6, burst: 1 } }, at))?.rateLimit).toEqual({
          callsPerMinute: 6,
          burst: 1,
        });
        await agents.update('agt_r', { rateLimit: null }, at);
        expect((await agents.get('agt_r'))?.rateLimit).toBeNull();
        // As stored before the field existed.
        const { rateLimit: _, ...older } = { ...base, agentId: 'agt_old', rateLimit: null };
        await agents.create(older as unknown as AgentRecord);
        expect((await agents.get('agt_old'))?.rateLimit).toBeNull();
        expect((await agents.list()).find((a) => a.agentId === 'agt_old')?.rateLimit).toBeNull();
      },
    );

    it('refuses a limit that is not one (a bug in the caller)', async () => {
      const rates = await limiter();
      await expect(rates.take('agt_a', { callsPerMinute: 0, burst: 1 }, new Date())).rejects.toThrow(RangeError);
      await expect(rates.take('agt_a', { callsPerMinute: 10, burst: 0 }, new Date())).rejects.toThrow(RangeError);
      await expect(rates.take('agt_a', { callsPerMinute: 1.5, burst: 1 }, new Date())).rejects.toThrow(RangeError);
    });
  });
}
