import { describe, expect, it } from 'vitest';
import type { GenerationCounter } from '../store/ports.js';
import { GenerationView } from './generation-view.js';

/** A shared counter whose reads the test answers by hand, and a clock it moves. */
function setup(refreshMs = 1_000) {
  let shared = 0;
  const reads: Array<{ answer: () => void; fail: () => void }> = [];
  const counter: GenerationCounter = {
    generation: () =>
      new Promise<number>((resolve, reject) => {
        const valueAtRead = shared;
        reads.push({ answer: () => resolve(valueAtRead), fail: () => reject(new Error('no answer within 2000 ms')) });
      }),
    bump: async () => ++shared,
  };
  const clock = { now: 0 };
  const errors: unknown[] = [];
  const view = new GenerationView(
    counter,
    refreshMs,
    (error) => errors.push(error),
    () => clock.now,
  );
  const otherInstanceBumps = () => void shared++;
  const answerAll = async () => {
    for (const read of reads.splice(0)) read.answer();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { view, reads, clock, errors, otherInstanceBumps, answerAll };
}

describe('GenerationView: the shared cache generation, read at most once per interval', () => {
  it('reads the counter once per interval however many calls ask, and in the background while the value is fresh', async () => {
    const { view, reads, clock, answerAll } = setup();
    const first = view.current();
    expect(reads).toHaveLength(1);
    await answerAll();
    expect(await first).toBe(0);
    // 1,000 calls over the next second: none reads; past half the interval one background read goes out.
    for (let call = 0; call < 1_000; call++) {
      clock.now = call;
      expect(await view.current()).toBe(0);
    }
    expect(reads).toHaveLength(1);
    await answerAll();
    expect(await view.current()).toBe(0);
    expect(reads).toHaveLength(0);
  });

  it("sees another instance's bump within the interval: a value older than it is never used", async () => {
    const { view, clock, otherInstanceBumps, answerAll } = setup();
    const start = view.current();
    await answerAll();
    expect(await start).toBe(0);
    clock.now = 100;
    otherInstanceBumps();
    // Until the interval after the bump has passed, the old value may serve; from then on, never.
    expect(await view.current()).toBe(0);
    clock.now = 1_100;
    const afterInterval = view.current();
    await answerAll();
    expect(await afterInterval).toBe(1);
  });

  it('knows its own bump at once and never takes it back with a read sent before it', async () => {
    const { view, clock, answerAll } = setup();
    const start = view.current();
    await answerAll();
    await start;
    clock.now = 600;
    expect(view.refresh()).not.toBeNull(); // a background read, sent before the bump
    await view.bump();
    await answerAll(); // answers 0: sent before the bump
    expect(await view.current()).toBe(1);
  });

  it('answers null at once while the store is slow or failing, instead of waiting for it or serving a value too old', async () => {
    const { view, reads, clock, errors, answerAll } = setup();
    const start = view.current();
    await answerAll();
    await start;
    clock.now = 600; // the background read goes out and hangs (a frozen store)
    expect(await view.current()).toBe(0);
    expect(reads).toHaveLength(1);
    clock.now = 1_200; // the value is too old; the read pending for 600 ms will not be waited for
    expect(await view.current()).toBeNull();
    reads.splice(0).forEach((read) => read.fail());
    await new Promise((resolve) => setImmediate(resolve));
    expect(errors).toHaveLength(1);
    expect(await view.current()).toBeNull(); // failed just now: no new read, no wait
    expect(reads).toHaveLength(0);
    clock.now = 2_300; // past half an interval after the failure: a read is tried again, and waited for while it is young
    const retried = view.current();
    expect(reads).toHaveLength(1);
    await answerAll();
    expect(await retried).toBe(0);
  });

  it('a failed bump stops the cache until a read succeeds: the write happened, the others may not know', async () => {
    let fail = true;
    const counter: GenerationCounter = {
      generation: async () => 7,
      bump: async () => (fail ? Promise.reject(new Error('down')) : 8),
    };
    const clock = { now: 0 };
    const view = new GenerationView(
      counter,
      1_000,
      () => {},
      () => clock.now,
    );
    expect(await view.current()).toBe(7);
    await expect(view.bump()).rejects.toThrow('down');
    expect(await view.current()).toBeNull();
    fail = false;
    clock.now = 600;
    expect(await view.current()).toBe(7);
  });

  it('with an interval of 0 reads on every call', async () => {
    let reads = 0;
    const view = new GenerationView({ generation: async () => ++reads, bump: async () => 0 }, 0, () => {});
    expect(await view.current()).toBe(1);
    expect(await view.current()).toBe(2);
  });
});
