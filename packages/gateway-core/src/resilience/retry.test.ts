import { describe, expect, it } from 'vitest';
import { DownstreamCallError } from '../errors.js';
import { Deadline } from './deadline.js';
import { withRetries } from './retry.js';

const RETRY = { retries: 2, minDelayMs: 1, maxDelayMs: 2 };
const unavailable = () => new DownstreamCallError('503', { reason: 'status', downstreamStatus: 503 });

/** An attempt that fails with `failures` in turn, then answers `ok`; counts its calls. */
function scripted(failures: unknown[]) {
  const script = { calls: 0, run: () => Promise.resolve('ok') as Promise<string> };
  script.run = () => {
    const failure = failures[script.calls++];
    return failure === undefined ? Promise.resolve('ok') : Promise.reject(failure);
  };
  return script;
}

describe('withRetries', () => {
  it('answers a first success with one attempt', async () => {
    const deadline = new Deadline(1000);
    const attempt = scripted([]);
    await expect(withRetries('GET', attempt.run, RETRY, deadline)).resolves.toBe('ok');
    expect(attempt.calls).toBe(1);
    deadline.end();
  });

  it('hands a first transient failure to the retries: two more attempts at most, the last failure reported', async () => {
    const deadline = new Deadline(1000);
    const recovers = scripted([unavailable(), unavailable()]);
    await expect(withRetries('GET', recovers.run, RETRY, deadline)).resolves.toBe('ok');
    expect(recovers.calls).toBe(3);
    const last = unavailable();
    const never = scripted([unavailable(), unavailable(), last]);
    await expect(withRetries('GET', never.run, RETRY, deadline)).rejects.toBe(last);
    expect(never.calls).toBe(3);
    deadline.end();
  });

  it('does not retry a failure that is not transient, nor a POST', async () => {
    const deadline = new Deadline(1000);
    const bug = new DownstreamCallError('500', { reason: 'status', downstreamStatus: 500 });
    const once = scripted([bug, unavailable()]);
    await expect(withRetries('GET', once.run, RETRY, deadline)).rejects.toBe(bug);
    expect(once.calls).toBe(1);
    const post = scripted([unavailable()]);
    await expect(withRetries('POST', post.run, RETRY, deadline)).rejects.toThrow('503');
    expect(post.calls).toBe(1);
    deadline.end();
  });

  it("rejects with the signal's reason when the deadline fired before the first attempt, or while it answered", async () => {
    const caller = new AbortController();
    caller.abort(new Error('gone'));
    const before = new Deadline(1000, caller.signal);
    const attempt = scripted([]);
    await expect(withRetries('GET', attempt.run, RETRY, before)).rejects.toThrow('gone');
    expect(attempt.calls).toBe(0);

    const late = new AbortController();
    const during = new Deadline(1000, late.signal);
    const answered = withRetries(
      'GET',
      () => {
        late.abort(new Error('left'));
        return Promise.resolve('ok');
      },
      RETRY,
      during,
    );
    await expect(answered).rejects.toThrow('left');
    before.end();
    during.end();
  });

  it('takes an attempt that throws instead of rejecting as its failure', async () => {
    const deadline = new Deadline(1000);
    let calls = 0;
    const attempt = () => {
      if (calls++ === 0) throw unavailable();
      return Promise.resolve('ok');
    };
    await expect(withRetries('GET', attempt, RETRY, deadline)).resolves.toBe('ok');
    expect(calls).toBe(2);
    deadline.end();
  });
});
