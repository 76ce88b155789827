import { describe, expect, it } from 'vitest';
import { TooManyAttemptsError } from '../errors.js';
import { MemoryAttemptCounter } from '../store/memory/attempts.js';
import { SignInThrottle } from './sign-in-throttle.js';

function throttle(
  options: { maxFailures?: number; backoffMs?: number; maxBackoffMs?: number; windowMs?: number } = {},
) {
  let now = 1_000_000;
  const clock = () => now;
  const attempts = new MemoryAttemptCounter(clock);
  return {
    throttle: new SignInThrottle({
      attempts,
      clock,
      maxFailures: 3,
      backoffMs: 1_000,
      maxBackoffMs: 8_000,
      ...options,
    }),
    attempts,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

async function refusal(check: Promise<void>): Promise<TooManyAttemptsError> {
  const error = await check.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(TooManyAttemptsError);
  return error as TooManyAttemptsError;
}

describe('SignInThrottle', () => {
  it('lets an address fail up to the limit, then makes it wait', async () => {
    const { throttle: t } = throttle();
    for (let i = 0; i < 2; i++) {
      await t.check('10.0.0.1');
      expect(await t.failed('10.0.0.1')).toBe(0);
    }
    await t.check('10.0.0.1');
    expect(await t.failed('10.0.0.1')).toBe(1_000);
    const error = await refusal(t.check('10.0.0.1'));
    expect(error.data.retryAfterSeconds).toBe(1);
    expect(error.httpStatus).toBe(429);
    // Another address is not affected.
    await expect(t.check('10.0.0.2')).resolves.toBeUndefined();
  });

  it('doubles the wait with every further failure, up to the cap', async () => {
    const { throttle: t, advance } = throttle();
    const waits: number[] = [];
    for (let i = 0; i < 7; i++) {
      waits.push(await t.failed('10.0.0.1'));
      advance(waits.at(-1)!);
    }
    expect(waits).toEqual([0, 0, 1_000, 2_000, 4_000, 8_000, 8_000]);
  });

  it('lets the address try again once the wait has passed', async () => {
    const { throttle: t, advance } = throttle();
    for (let i = 0; i < 4; i++) await t.failed('10.0.0.1');
    expect((await refusal(t.check('10.0.0.1'))).data.retryAfterSeconds).toBe(2);
    advance(1_999);
    expect((await refusal(t.check('10.0.0.1'))).data.retryAfterSeconds).toBe(1);
    advance(1);
    await expect(t.check('10.0.0.1')).resolves.toBeUndefined();
  });

  it('clears the address on success', async () => {
    const { throttle: t, attempts } = throttle();
    for (let i = 0; i < 3; i++) await t.failed('10.0.0.1');
    await t.succeeded('10.0.0.1');
    expect(await attempts.read('10.0.0.1')).toBeNull();
    await expect(t.check('10.0.0.1')).resolves.toBeUndefined();
  });

  it('forgets failures after the window', async () => {
    const { throttle: t, advance } = throttle({ windowMs: 60_000 });
    for (let i = 0; i < 2; i++) await t.failed('10.0.0.1');
    advance(60_000);
    expect(await t.failed('10.0.0.1')).toBe(0);
  });

  it('counts an IPv4 address seen through an IPv6 socket as itself', async () => {
    const { throttle: t } = throttle();
    for (let i = 0; i < 3; i++) await t.failed('::ffff:10.0.0.1');
    await refusal(t.check('10.0.0.1'));
  });
});
