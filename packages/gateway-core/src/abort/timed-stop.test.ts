import { describe, expect, it } from 'vitest';
import { TimedStop } from './timed-stop.js';

describe('TimedStop', () => {
  it('stops with a TimeoutError when the time runs out, and says so', async () => {
    const stop = new TimedStop(20);
    const reason = await new Promise((resolve) => stop.onStop(resolve));
    expect(stop.timedOut).toBe(true);
    expect(stop.stopped).toBe(true);
    expect((reason as DOMException).name).toBe('TimeoutError');
    expect(stop.reason).toBe(reason);
  });

  it('stops with the caller’s reason when the caller cancels first', () => {
    const caller = new AbortController();
    const stop = new TimedStop(10_000, caller.signal);
    const reasons: unknown[] = [];
    stop.onStop((reason) => reasons.push(reason));
    caller.abort(new Error('client went away'));
    expect(stop.timedOut).toBe(false);
    expect(reasons).toEqual([new Error('client went away')]);
    stop.dispose();
  });

  it('stops a request registered after it fired, at once', () => {
    const caller = new AbortController();
    caller.abort('gone');
    const stop = new TimedStop(10_000, caller.signal);
    expect(stop.stopped).toBe(true);
    const reasons: unknown[] = [];
    stop.onStop((reason) => reasons.push(reason));
    expect(reasons).toEqual(['gone']);
  });

  it('once disposed, neither the timer nor the caller stops it', async () => {
    const caller = new AbortController();
    const stop = new TimedStop(10, caller.signal);
    let stopped = false;
    stop.onStop(() => (stopped = true));
    stop.dispose();
    await new Promise((resolve) => setTimeout(resolve, 30));
    caller.abort();
    expect(stopped).toBe(false);
    expect(stop.stopped).toBe(false);
  });
});
