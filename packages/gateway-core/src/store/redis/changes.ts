import type { ChangeFeed, ToolListChange } from '../ports.js';
import { publish, type RedisConnection } from './connection.js';

/**
 * Redis pub/sub on one channel. A subscribed connection can send nothing
 * else, so a single server gets a second connection (opened with the first
 * listener); a cluster client keeps its own for pub/sub, and PUBLISH reaches
 * every node's subscribers. Messages are JSON; anything else is ignored.
 */
const RETRY_MS = 1_000;

export class RedisChangeFeed implements ChangeFeed {
  readonly #connection: RedisConnection;
  readonly #channel: string;
  readonly #listeners = new Set<(change: ToolListChange) => void>();
  #subscribed: Promise<unknown> | null = null;
  #closeSubscriber: (() => Promise<void>) | null = null;
  #closed = false;

  constructor(
    connection: RedisConnection,
    channel: string,
    readonly onError: (error: Error) => void = () => undefined,
  ) {
    this.#connection = connection;
    this.#channel = channel;
  }

  async publish(change: ToolListChange): Promise<void> {
    await publish(this.#connection.client, this.#channel, JSON.stringify({ agentId: change.agentId }));
  }

  subscribe(listener: (change: ToolListChange) => void): () => void {
    this.#listeners.add(listener);
    this.#ensureSubscribed();
    return () => void this.#listeners.delete(listener);
  }

  /** Opens the subscription once; a failure (Redis away at start-up) is retried every second while someone listens. */
  #ensureSubscribed(): void {
    this.#subscribed ??= this.#open().catch((error: unknown) => {
      this.onError(error instanceof Error ? error : new Error(String(error)));
      setTimeout(() => {
        this.#subscribed = null;
        if (this.#listeners.size > 0 && !this.#closed) this.#ensureSubscribed();
      }, RETRY_MS).unref();
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#closeSubscriber?.();
  }

  async #open(): Promise<void> {
    const deliver = (message: string) => {
      const change = parseChange(message);
      if (change) for (const listener of this.#listeners) listener(change);
    };
    const { client } = this.#connection;
    if (this.#connection.cluster) {
      await (client as { subscribe(channel: string, listener: (message: string) => void): Promise<void> }).subscribe(
        this.#channel,
        deliver,
      );
      return;
    }
    const subscriber = (client as unknown as { duplicate(): Subscriber }).duplicate();
    subscriber.on('error', this.onError);
    await subscriber.connect();
    await subscriber.subscribe(this.#channel, deliver);
    this.#closeSubscriber = async () => subscriber.destroy();
  }
}

/** What of a duplicated single-server client the feed uses. */
interface Subscriber {
  connect(): Promise<unknown>;
  subscribe(channel: string, listener: (message: string) => void): Promise<void>;
  destroy(): void;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

function parseChange(message: string): ToolListChange | null {
  try {
    const parsed = JSON.parse(message) as { agentId?: unknown };
    if (parsed.agentId === null || typeof parsed.agentId === 'string') return { agentId: parsed.agentId };
  } catch {
    // Not ours: ignored.
  }
  return null;
}
