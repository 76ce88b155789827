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
    store: {
      keep: (...args) => streams.keep(...args),
      watch: (...args) => streams.watch(...args),
      get: (id) => ((reads += 1), streams.get(id)),
    },
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
    const keeper = streams.keeper('stream-2', 'session-a', new AbortController().signal);
    keeper.keepIfLost(new Promise((resolve) => (ready = resolve)));
    keeper.streamStarted();
    ready(ANSWER);
    await expect.poll(() => store.get('stream-2')).toEqual({ sessionId: 'session-a', message: JSON.stringify(ANSWER) });
    // Not started and not gone: delivered in its stream, nothing kept.
    const delivered = Promise.resolve(ANSWER);
    streams.keeper('stream-3', 'session-a', new AbortController().signal).keepIfLost(delivered);
    await delivered;
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await store.get('stream-3')).toBeNull();
  });

  it('keeps a charged answer before it is charged; says nobody reads it only when the client left and the store refused it (issue 25, finding 1)', async () => {
    const { store } = countingStore();
    const refusing = { ...store, keep: () => Promise.reject(new Error('store down')) };
    const gone = new AbortController();
    gone.abort();
    // Still connected and not streamed: the reply carries it, nothing kept.
    expect(
      await new ResumableStreams(refusing, 60_000)
        .keeper('s-1', 'session-a', new AbortController().signal)
        .keepCharged(ANSWER),
    ).toBe(true);
    // Gone and kept: charged; gone and refused: not.
    expect(await new ResumableStreams(store, 60_000).keeper('s-2', 'session-a', gone.signal).keepCharged(ANSWER)).toBe(
      true,
    );
    expect(await store.get('s-2')).toEqual({ sessionId: 'session-a', message: JSON.stringify(ANSWER) });
    expect(
      await new ResumableStreams(refusing, 60_000).keeper('s-3', 'session-a', gone.signal).keepCharged(ANSWER),
    ).toBe(false);
    // Streamed to a connection that still looks open: sent there, so charged though not kept.
    const streamed = new ResumableStreams(refusing, 60_000).keeper('s-4', 'session-a', new AbortController().signal);
    streamed.streamStarted();
    expect(await streamed.keepCharged(ANSWER)).toBe(true);
  });

  it('stops waiting when its client leaves', async () => {
    const { store } = countingStore();
    const gone = new AbortController();
    const waiting = new ResumableStreams(store, 60_000).kept(position, 'session-a', gone.signal);
    gone.abort();
    expect(await waiting).toBeNull();
  });
});
