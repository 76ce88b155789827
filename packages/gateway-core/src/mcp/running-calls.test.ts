import { describe, expect, it } from 'vitest';
import { ClientGoneError } from '../errors.js';
import { RunningCalls } from './running-calls.js';

describe('RunningCalls', () => {
  it('cancels the call of that session and id only, with a ClientGoneError as the reason', () => {
    const calls = new RunningCalls();
    const one = calls.start('s1', 1);
    const other = calls.start('s2', 1);
    const text = calls.start('s1', '1');
    expect(calls.cancel('s1', 1)).toBe(true);
    expect(one.signal.aborted).toBe(true);
    expect(one.signal.reason).toBeInstanceOf(ClientGoneError);
    expect([other.signal.aborted, text.signal.aborted]).toEqual([false, false]);
  });

  it('finds nothing once the call is done, or for an id that is not a string or number', () => {
    const calls = new RunningCalls();
    const call = calls.start('s', 7);
    call.done();
    expect(calls.cancel('s', 7)).toBe(false);
    expect(call.signal.aborted).toBe(false);
    calls.start('s', 8);
    expect(calls.cancel('s', { id: 8 })).toBe(false);
    expect(calls.cancel('s', undefined)).toBe(false);
  });

  it('aborts when the client leaves as well', () => {
    const calls = new RunningCalls();
    const gone = new AbortController();
    const call = calls.start('s', 1, gone.signal);
    gone.abort();
    expect(call.signal.aborted).toBe(true);
  });

  it('aborts with the reason of whichever comes first: the client leaving (even before the start) or the cancel', () => {
    const calls = new RunningCalls();
    const gone = new AbortController();
    const call = calls.start('s', 1, gone.signal);
    gone.abort('left');
    calls.cancel('s', 1);
    expect(call.signal.reason).toBe('left');
    const already = calls.start('s', 2, AbortSignal.abort('left before'));
    expect(already.signal.reason).toBe('left before');
    const later = new AbortController();
    const cancelled = calls.start('s', 3, later.signal);
    calls.cancel('s', 3);
    later.abort('left after');
    expect(cancelled.signal.reason).toBeInstanceOf(ClientGoneError);
  });

  it('leaves a newer call with the same id alone when the older one ends', () => {
    const calls = new RunningCalls();
    const older = calls.start('s', 1);
    const newer = calls.start('s', 1);
    older.done();
    expect(calls.cancel('s', 1)).toBe(true);
    expect(newer.signal.aborted).toBe(true);
  });
});
