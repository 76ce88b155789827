import { describe, expect, it } from 'vitest';
import { MemoryRateLimiter } from './rate-limits.js';

describe('MemoryRateLimiter', () => {
  const limit = { callsPerMinute: 60, burst: 2 };
  const at = (ms: number) => new Date(Date.UTC(2030, 0, 1) + ms);

  it("judges by the caller's clock", async () => {
    const rates = new MemoryRateLimiter();
    expect((await rates.take('agt_a', limit, at(0))).ok).toBe(true);
    expect((await rates.take('agt_a', limit, at(0))).ok).toBe(true);
    expect(await rates.take('agt_a', limit, at(400))).toEqual({ ok: false, retryAfterMs: 600 });
    expect((await rates.take('agt_a', limit, at(1_000))).ok).toBe(true);
  });

  it('forgets an agent given back everything it took', async () => {
    const rates = new MemoryRateLimiter();
    await rates.take('agt_a', limit, at(0));
    await rates.take('agt_b', limit, at(0));
    await rates.giveBack('agt_a', limit, at(10));
    expect(rates.size).toBe(1);
  });

  it('sweeps agents whose bucket is full again as takes go on', async () => {
    const rates = new MemoryRateLimiter();
    for (let i = 0; i < 998; i++) await rates.take(`agt_${i}`, limit, at(0));
    await rates.take('agt_late', limit, at(4_000));
    expect(rates.size).toBe(999);
    // The thousandth take sweeps the 999 idle agents before counting its own.
    await rates.take('agt_last', limit, at(5_000));
    expect(rates.size).toBe(1);
  });
});
