import { describe, expect, it } from 'vitest';
import { describeError, TooManyCallsError } from '../errors.js';
import { AgentConcurrency, DEFAULT_MAX_CONCURRENT_CALLS_PER_AGENT } from './agent-concurrency.js';

describe('AgentConcurrency', () => {
  it('admits an agent up to its limit, then refuses with too-many-calls (429, -32003, retry after 1 s)', () => {
    const limits = new AgentConcurrency(2);
    limits.enter('a');
    limits.enter('a');
    let refusal: unknown;
    try {
      limits.enter('a');
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(TooManyCallsError);
    expect(refusal).toMatchObject({
      code: 'too-many-calls',
      httpStatus: 429,
      jsonRpcCode: -32003,
      data: { limit: 2, retryAfterSeconds: 1 },
    });
    expect(describeError(refusal)).toMatchObject({ outcome: 'too-many-calls', delivery: 'in-band', expected: true });
    expect(limits.inFlight('a')).toBe(2);
  });

  it('counts each agent on its own', () => {
    const limits = new AgentConcurrency(1);
    limits.enter('a');
    expect(() => limits.enter('b')).not.toThrow();
    expect(() => limits.enter('a')).toThrow(TooManyCallsError);
  });

  it('a place comes back when a call leaves, once however often leave is called', () => {
    const limits = new AgentConcurrency(2);
    const leave = limits.enter('a');
    limits.enter('a');
    leave();
    leave();
    expect(limits.inFlight('a')).toBe(1);
    limits.enter('a');
    expect(() => limits.enter('a')).toThrow(TooManyCallsError);
  });

  it('forgets an agent with nothing in flight', () => {
    const limits = new AgentConcurrency(3);
    const leaves = [limits.enter('a'), limits.enter('a')];
    for (const leave of leaves) leave();
    expect(limits.inFlight('a')).toBe(0);
  });

  it('0 turns the limit off', () => {
    const limits = new AgentConcurrency(0);
    for (let call = 0; call < 1000; call++) limits.enter('a');
  });

  it(`defaults to ${DEFAULT_MAX_CONCURRENT_CALLS_PER_AGENT} and refuses a limit that is not a whole number`, () => {
    expect(new AgentConcurrency().limit).toBe(DEFAULT_MAX_CONCURRENT_CALLS_PER_AGENT);
    expect(() => new AgentConcurrency(-1)).toThrow(RangeError);
    expect(() => new AgentConcurrency(2.5)).toThrow(RangeError);
  });
});
