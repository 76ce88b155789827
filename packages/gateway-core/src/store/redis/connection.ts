import { createClient, ErrorReply } from 'redis';
import { performance } from 'node:perf_hooks';
import { StoreUnavailableError } from '../../errors.js';

export type RedisClient = ReturnType<typeof newClient>;

export interface ConnectionOptions {
  url: string;
  commandTimeoutMs: number;
  connectTimeoutMs: number;
  onError: (error: Error) => void;
}

/** Backoff between reconnection attempts: 50 ms doubling to 2 s, with jitter so instances don't stampede. */
export function reconnectDelay(retries: number): number {
  return Math.min(50 * 2 ** retries, 2_000) + Math.floor(Math.random() * 100);
}

/**
 * A client that survives Redis going away: it never crashes the process (an
 * `error` listener is always attached), it reconnects by itself with backoff,
 * and while it is disconnected commands fail at once instead of queueing, so
 * the gateway can answer 503 and readiness can say why.
 */
export function createConnection(options: ConnectionOptions): RedisClient {
  const client = newClient(options);
  // Report an outage once, not once per reconnection attempt.
  let reported = false;
  client.on('ready', () => (reported = false));
  client.on('error', (error: Error) => {
    if (reported) return;
    reported = true;
    options.onError(error);
  });
  return client;
}

function newClient(options: ConnectionOptions) {
  const client = createClient({
    url: options.url,
    disableOfflineQueue: true,
    socket: { connectTimeout: options.connectTimeoutMs, reconnectStrategy: reconnectDelay },
    // node-redis (6.x) arms its own 5 s AbortSignal.timeout on every command unless told not to;
    // the watchdog below does that job for all commands at once.
    commandOptions: { timeout: 0 },
  });
  watchdogs.set(client, new CommandWatchdog(options.commandTimeoutMs));
  return client;
}

/**
 * Fails commands that get no answer within the timeout (a Redis that is
 * connected but hung). node-redis's own command timeout arms an
 * AbortSignal.timeout per command whose timer cannot be cancelled: every
 * command then builds a TimeoutError seconds later, answered or not, a
 * measurable share of the gateway's CPU under load. One sweep over the
 * commands in flight does the same job for all of them.
 */
class CommandWatchdog {
  readonly #pending = new Set<{ startedAt: number; fail: (error: Error) => void }>();
  #sweeper: NodeJS.Timeout | undefined;

  constructor(private readonly timeoutMs: number) {}

  run<T>(send: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const entry = { startedAt: performance.now(), fail: reject };
      this.#pending.add(entry);
      this.#sweeper ??= setInterval(() => this.#sweep(), Math.min(100, this.timeoutMs)).unref();
      send().then(
        (value) => {
          this.#pending.delete(entry);
          resolve(value);
        },
        (error: unknown) => {
          this.#pending.delete(entry);
          reject(error);
        },
      );
    });
  }

  #sweep(): void {
    if (this.#pending.size === 0) {
      clearInterval(this.#sweeper);
      this.#sweeper = undefined;
      return;
    }
    const overdue = performance.now() - this.timeoutMs;
    for (const entry of this.#pending) {
      if (entry.startedAt > overdue) continue;
      this.#pending.delete(entry);
      entry.fail(new Error(`no answer within ${this.timeoutMs} ms`));
    }
  }
}

const watchdogs = new WeakMap<object, CommandWatchdog>();

/**
 * Starts connecting and waits at most `timeoutMs` for the first connection.
 * An unreachable Redis does not stop start-up: the client keeps trying in the
 * background and readiness reports the store unhealthy meanwhile.
 */
export async function connectInBackground(client: RedisClient, timeoutMs: number): Promise<void> {
  const connecting = client.connect().then(
    () => undefined,
    () => undefined, // rejected only when the client is closed before it ever connected
  );
  let timer: NodeJS.Timeout | undefined;
  const gaveUp = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
  await Promise.race([connecting, gaveUp]);
  clearTimeout(timer);
}

/**
 * Runs a command, turning every failure to reach Redis into a typed
 * StoreUnavailableError. An error reply from Redis itself is a bug, not an
 * outage, and is rethrown unchanged.
 */
export async function command<T>(client: RedisClient, run: () => Promise<T>): Promise<T> {
  const watchdog = watchdogs.get(client);
  try {
    return await (watchdog ? watchdog.run(run) : run());
  } catch (error) {
    if (error instanceof ErrorReply) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new StoreUnavailableError(`The store is unavailable: ${reason}`, { cause: error });
  }
}
