import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { FairSlots, type ReleaseSlot, type SlotOutcome } from './fair-slots.js';

function held(outcome: SlotOutcome): ReleaseSlot {
  if (typeof outcome !== 'function') throw new Error(`expected a slot, got ${outcome}`);
  return outcome;
}

describe('FairSlots', () => {
  it('hands out free slots at once, then queues', async () => {
    const slots = new FairSlots(2);
    held(await slots.acquire('a', 1000));
    held(await slots.acquire('a', 1000));
    expect(slots.inUse).toBe(2);
    let third: SlotOutcome | undefined;
    void slots.acquire('a', 1000).then((outcome) => (third = outcome));
    await sleep(5);
    expect(third).toBeUndefined();
    expect(slots.waiting).toBe(1);
  });

  it('serves the agents waiting round-robin, each in its own arrival order, not one global FIFO', async () => {
    const slots = new FairSlots(1);
    const release = held(await slots.acquire('flood', 1000));
    const served: string[] = [];
    const wait = (key: string, label: string) =>
      slots.acquire(key, 5000).then((outcome) => {
        served.push(label);
        held(outcome)();
      });
    // The flooding agent queues five calls before the others queue one each.
    const waits = [
      ...['f1', 'f2', 'f3', 'f4', 'f5'].map((label) => wait('flood', label)),
      wait('quiet', 'q1'),
      wait('other', 'o1'),
      wait('quiet', 'q2'),
    ];
    release();
    await Promise.all(waits);
    expect(served).toEqual(['f1', 'q1', 'o1', 'f2', 'q2', 'f3', 'f4', 'f5']);
    expect(slots.inUse).toBe(0);
  });

  it('gives up a wait after maxWaitMs and leaves the queue as it was for the others', async () => {
    const slots = new FairSlots(1);
    const release = held(await slots.acquire('a', 1000));
    const started = performance.now();
    const late = slots.acquire('b', 50);
    const patient = slots.acquire('c', 5000);
    expect(await late).toBe('timed-out');
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
    expect(slots.waiting).toBe(1);
    release();
    held(await patient)();
    expect(slots.inUse).toBe(0);
  });

  it("ends a wait at once when the caller's signal aborts, and refuses an aborted caller outright", async () => {
    const slots = new FairSlots(1);
    held(await slots.acquire('a', 1000));
    const controller = new AbortController();
    const waiting = slots.acquire('b', 10_000, controller.signal);
    setTimeout(() => controller.abort(), 20);
    const started = performance.now();
    expect(await waiting).toBe('aborted');
    expect(performance.now() - started).toBeLessThan(200);
    expect(slots.waiting).toBe(0);
    expect(await slots.acquire('c', 1000, AbortSignal.abort())).toBe('aborted');
  });

  it('releasing twice frees one slot only', async () => {
    const slots = new FairSlots(2);
    const release = held(await slots.acquire('a', 1000));
    held(await slots.acquire('a', 1000));
    release();
    release();
    expect(slots.inUse).toBe(1);
    held(await slots.acquire('b', 1000));
    expect(slots.inUse).toBe(2);
  });

  it('refuses a size that is not a positive whole number', () => {
    expect(() => new FairSlots(0)).toThrow(RangeError);
    expect(() => new FairSlots(1.5)).toThrow(RangeError);
  });
});
