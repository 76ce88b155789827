import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../store/memory/index.js';
import type { StreamStore } from '../store/ports.js';
import { ResumableStreams } from './resumable-streams.js';

const ANSWER = { jsonrpc: '2.0' as const, id: 7, result: { content: [] } };
const position = { streamId: 'stream-1', requestId: 7, seen: 0 };

/** The memory stream store, counting its reads. */
function countingStore(): { store: StreamStore; reads: () => number } {
  const { streams } = createMemoryStore();
  let reads = 0;
  return {
    reads: () => reads,
    store: { keep: (...args) => streams.keep(...args), watch: (...args) => streams.watch(...args), get: (id) => ((reads += 1), streams.get(id)) },
  };
}

describe('ResumableStreams', () => {
  it('wakes a waiting resume when the answer is kept: one read as it starts, one on the notice (issue 25, finding 2)', async () => {
    const { store, reads } = countingStore();
    const streams = new ResumableStreams(store, 60_000);
    const waiting = streams.kept(position, 'session-a', undefined);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await store.keep('stream-1', { sessionId: 'session-a', message: JSON.stringify(ANSWER) }, 60_000);
    expect(await waiting).toEqual(ANSWER);
    expect(reads()).toBe(2);
  });

  it('keeps an answer once its stream started, though the client seems to stay (issue 25, finding 1)', async () => {
    const { store } = countingStore();
    const streams = new ResumableStreams(store, 60_000);
    let ready!: (message: typeof ANSWER) => void;
    const streamStarted = streams.keepIfLost('stream-2', 'session-a', new AbortController().signal, new Promise((resolve) => (ready = resolve)));
    streamStarted();
    ready(ANSWER);
    await expect.poll(() => store.get('stream-2')).toEqual({ sessionId: 'session-a', message: JSON.stringify(ANSWER) });
    // Not started and not gone: delivered in its stream, nothing kept.
    const delivered = Promise.resolve(ANSWER);
    streams.keepIfLost('stream-3', 'session-a', new AbortController().signal, delivered);
    await delivered;
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await store.get('stream-3')).toBeNull();
  });

  it('stops waiting when its client leaves', async () => {
    const { store } = countingStore();
    const gone = new AbortController();
    const waiting = new ResumableStreams(store, 60_000).kept(position, 'session-a', gone.signal);
    gone.abort();
    expect(await waiting).toBeNull();
  });
});
