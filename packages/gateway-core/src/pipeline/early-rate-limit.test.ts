import { describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../errors.js';
import { MemoryRateLimiter } from '../store/memory/rate-limits.js';
import type { AgentRecord, RateLimiter } from '../store/ports.js';
import { testAgent } from '../testing/tool-fixtures.js';
import { EarlyRateLimits } from './early-rate-limit.js';

const NOW = new Date('2025-05-01T12:00:00Z');
const LIMIT = { callsPerMinute: 60, burst: 2 };

function agent(overrides: Partial<AgentRecord> = {}): AgentRecord {
  return testAgent({ agentId: 'agt_rate', rateLimit: LIMIT, ...overrides }, NOW);
}

function setup(limiter: RateLimiter = new MemoryRateLimiter()) {
  const early = new EarlyRateLimits({ limiter, clock: () => NOW });
  /** How many more calls the agent may make now, at LIMIT (counting them). */
  const left = async () => {
    let passed = 0;
    while ((await limiter.take('agt_rate', LIMIT, NOW)).ok) passed++;
    return passed;
  };
  return { early, left };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('EarlyRateLimits', () => {
  it('starts nothing for an agent not seen yet, or seen without a limit', async () => {
    const { early, left } = setup();
    expect(early.start('agt_rate')).toBeNull();
    early.remember(agent({ rateLimit: null }));
    expect(early.start('agt_rate')).toBeNull();
    expect(await left()).toBe(2);
  });

  it('counts a call at once for an agent seen with a limit, and hands the answer to the limits step', async () => {
    const { early, left } = setup();
    early.remember(agent());
    const ahead = early.start('agt_rate')!;
    expect(await ahead.take(agent())).toEqual({ ok: true });
    // Taken: abandoning afterwards gives nothing back.
    ahead.abandon();
    await flush();
    expect(await left()).toBe(1);
  });

  it('passes a refusal on to the limits step as it is', async () => {
    const { early } = setup();
    early.remember(agent({ rateLimit: { callsPerMinute: 60, burst: 1 } }));
    expect(await early.start('agt_rate')!.take(agent({ rateLimit: { callsPerMinute: 60, burst: 1 } }))).toEqual({
      ok: true,
    });
    expect(await early.start('agt_rate')!.take(agent({ rateLimit: { callsPerMinute: 60, burst: 1 } }))).toEqual({
      ok: false,
      retryAfterMs: 1000,
    });
  });

  it('uncounts the call when it ends before its limits step', async () => {
    const { early, left } = setup();
    early.remember(agent());
    early.start('agt_rate')!.abandon();
    await flush();
    expect(await left()).toBe(2);
  });

  it("gives the take back, and leaves the step to take afresh, when the agent's limit changed since", async () => {
    const { early, left } = setup();
    early.remember(agent());
    const ahead = early.start('agt_rate')!;
    expect(await ahead.take(agent({ rateLimit: { callsPerMinute: 60, burst: 5 } }))).toBeNull();
    expect(await ahead.take(agent({ rateLimit: null }))).toBeNull();
    await flush();
    expect(await left()).toBe(2);
  });

  it('remembers a changed limit, and that a limit was removed', async () => {
    const { early } = setup();
    early.remember(agent());
    early.remember(agent({ rateLimit: { callsPerMinute: 1, burst: 1 } }));
    expect(early.start('agt_rate')!.limit).toEqual({ callsPerMinute: 1, burst: 1 });
    early.remember(agent({ rateLimit: null }));
    expect(early.start('agt_rate')).toBeNull();
  });

  it('rethrows a store failure to the limits step, and gives nothing back on abandon', async () => {
    const failing: RateLimiter = {
      take: async () => {
        throw new StoreUnavailableError('down');
      },
      giveBack: async () => {
        throw new Error('nothing was taken');
      },
    };
    const { early } = setup(failing);
    early.remember(agent());
    await expect(early.start('agt_rate')!.take(agent())).rejects.toBeInstanceOf(StoreUnavailableError);
    early.start('agt_rate')!.abandon();
    await flush();
  });

  it('forgets the agents least recently changed beyond maxAgents', () => {
    const early = new EarlyRateLimits({ limiter: new MemoryRateLimiter(), maxAgents: 2 });
    for (const id of ['agt_1', 'agt_2', 'agt_3']) early.remember(agent({ agentId: id }));
    expect(early.start('agt_1')).toBeNull();
    expect(early.start('agt_3')).not.toBeNull();
  });
});
