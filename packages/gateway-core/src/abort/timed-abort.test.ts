import { describe, expect, it } from 'vitest';
import { TimedAbort } from './timed-abort.js';

describe('TimedAbort', () => {
  it('fires with a TimeoutError when the time runs out, and says so', async () => {
    const abort = new TimedAbort(20);
    await new Promise((resolve) => abort.signal.addEventListener('abort', resolve));
    expect(abort.timedOut).toBe(true);
    expect((abort.signal.reason as DOMException).name).toBe('TimeoutError');
  });

  it('fires with the caller’s reason when the caller cancels first', () => {
    const caller = new AbortController();
    const abort = new TimedAbort(10_000, caller.signal);
    caller.abort(new Error('client went away'));
    expect(abort.signal.aborted).toBe(true);
    expect(abort.timedOut).toBe(false);
    expect((abort.signal.reason as Error).message).toBe('client went away');
    abort.dispose();
  });

  it('starts aborted when the caller already was', () => {
    const caller = new AbortController();
    caller.abort('gone');
    expect(new TimedAbort(10_000, caller.signal).signal.reason).toBe('gone');
  });

  it('once disposed, neither the timer nor the caller fires it', async () => {
    const caller = new AbortController();
    const abort = new TimedAbort(10, caller.signal);
    abort.dispose();
    await new Promise((resolve) => setTimeout(resolve, 30));
    caller.abort();
    expect(abort.signal.aborted).toBe(false);
  });
});
