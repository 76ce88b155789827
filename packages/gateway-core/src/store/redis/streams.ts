import type { StreamAnswer, StreamStore } from '../ports.js';
import { KeyedListeners } from '../keyed-listeners.js';
import { command, publish, type RedisClient } from './connection.js';
import type { Keys } from './keys.js';

type ClusterClient = Extract<RedisClient, { masters: unknown }>;
type SingleClient = Exclude<RedisClient, ClusterClient>;

/**
 * How long a watch waits for the notice channel before it resolves without it (the caller then re-reads on its own).
 */
const SUBSCRIBE_WAIT_MS = 2_000;

/**
 * A kept answer is one JSON value with an expiry, readable from every
 * instance; keeping it publishes the stream's id on one channel, which every
 * instance with a waiting resume subscribes to (pub/sub needs no keyspace
 * notifications configured on the server, and works on a cluster).
 */
export class RedisStreamStore implements StreamStore {
  readonly #watchers = new KeyedListeners();
  #subscription: Promise<void> | null = null;
  /** On a single Redis, a connection in subscriber mode of its own; a cluster client keeps one for pub/sub itself. */
  #subscriber: SingleClient | null = null;

  constructor(
    private readonly client: RedisClient,
    private readonly keys: Keys,
    private readonly cluster: boolean,
  ) {}

  async keep(streamId: string, answer: StreamAnswer, ttlMs: number): Promise<void> {
    const key = this.keys.stream(streamId);
    await command(
      this.client,
      () => this.client.set(key, JSON.stringify(answer), { expiration: { type: 'PX', value: ttlMs } }),
      key,
    );
    // A notice lost (the channel down) costs its resume the wait until its own next read, never the answer.
    await publish(this.client, this.keys.streamNotices(), streamId).catch(() => undefined);
  }

  async get(streamId: string): Promise<StreamAnswer | null> {
    const key = this.keys.stream(streamId);
    const value = await command(this.client, () => this.client.get(key), key);
    return value === null ? null : (JSON.parse(value) as StreamAnswer);
  }

  async watch(streamId: string, onKept: () => void): Promise<() => void> {
    const stop = this.#watchers.on(streamId, onKept);
    await withinMs(this.#subscribed(), SUBSCRIBE_WAIT_MS);
    return stop;
  }

  async close(): Promise<void> {
    const subscriber = this.#subscriber;
    if (subscriber?.isReady) await subscriber.close().catch(() => undefined);
    else if (subscriber?.isOpen) subscriber.destroy();
  }

  /** Subscribed once, on the first watch; tried again on a later watch if it failed. */
  #subscribed(): Promise<void> {
    this.#subscription ??= this.#subscribe().catch(() => {
      this.#subscription = null;
    });
    return this.#subscription;
  }

  async #subscribe(): Promise<void> {
    const hear = (streamId: string) => this.#watchers.emit(streamId);
    const channel = this.keys.streamNotices();
    if (this.cluster) return (this.client as ClusterClient).subscribe(channel, hear);
    this.#subscriber ??= this.#newSubscriber();
    if (!this.#subscriber.isOpen) await this.#subscriber.connect();
    await this.#subscriber.subscribe(channel, hear);
  }

  #newSubscriber(): SingleClient {
    const subscriber = (this.client as SingleClient).duplicate();
    // Its outages are the main connection's too, and reported there.
    subscriber.on('error', () => undefined);
    // Back after an outage (it subscribes again by itself): notices sent meanwhile are lost, so every watcher reads
    // again. Not on its first connection: the watchers waiting then read after it anyway.
    let connectedBefore = false;
    subscriber.on('ready', () => {
      if (connectedBefore) this.#watchers.emitAll();
      connectedBefore = true;
    });
    return subscriber;
  }
}

/** Resolves when `work` does or after `ms`, whichever comes first; never rejects. */
function withinMs(work: Promise<void>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    timer.unref();
    void work.finally(() => (clearTimeout(timer), resolve()));
  });
}
