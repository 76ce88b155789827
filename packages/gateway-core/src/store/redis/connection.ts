import { createClient, createCluster, ErrorReply } from 'redis';
import { performance } from 'node:perf_hooks';
import { StoreUnavailableError } from '../../errors.js';
import { PartialStoreOutage } from '../partial-outage.js';
import type { RedisAddress } from './address.js';
import { MasterHealth } from './master-health.js';

type SingleClient = ReturnType<typeof newClient>;
type ClusterClient = ReturnType<typeof newCluster>;
/** One Redis, or a Redis Cluster: the adapters send the same commands to either. */
export type RedisClient = SingleClient | ClusterClient;

export interface ConnectionOptions {
  commandTimeoutMs: number;
  connectTimeoutMs: number;
  onError: (error: Error) => void;
}

/** The client and what only the connection knows how to do for its kind of Redis. */
export interface RedisConnection {
  readonly client: RedisClient;
  readonly cluster: boolean;
  /** Starts connecting; see `connectInBackground`. */
  connect(timeoutMs: number): Promise<void>;
  /**
   * One round trip to every server holding data (every master of a cluster),
   * each within the command timeout; `PartialStoreOutage` when some masters
   * of a cluster answer and others do not.
   */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Backoff between reconnection attempts: 50 ms doubling to 2 s, with jitter so instances don't stampede. */
export function reconnectDelay(retries: number): number {
  return Math.min(50 * 2 ** retries, 2_000) + Math.floor(Math.random() * 100);
}

/**
 * A client that survives Redis going away: it never crashes the process (an
 * `error` listener is always attached), it reconnects by itself with backoff,
 * and while it is disconnected commands fail at once instead of queueing, so
 * the gateway can answer 503 and readiness can say why. On a cluster the
 * same holds per master: a command for a slot whose master is away fails at
 * once, the others go on until the cluster itself says it is down.
 */
export function createConnection(address: RedisAddress, options: ConnectionOptions): RedisConnection {
  if (address.kind === 'single') {
    const connection = singleConnection(address.url, options);
    watchdogs.set(connection.client, new CommandWatchdog(options.commandTimeoutMs));
    return connection;
  }
  const cluster = newCluster(address, options);
  const health = new MasterHealth(cluster, suspectAfterMs(options.commandTimeoutMs));
  watchdogs.set(cluster, new CommandWatchdog(options.commandTimeoutMs, health));
  return clusterConnection(cluster, health, options);
}

/**
 * How long a command waits before its master is asked whether it answers
 * (and as long again for that answer): short, so an agent on a frozen master
 * is refused about a second after the freeze rather than after the command
 * timeout; well above a healthy master's slowest answer.
 */
export function suspectAfterMs(commandTimeoutMs: number): number {
  return Math.min(500, Math.max(1, Math.floor(commandTimeoutMs / 4)));
}

/** Report an outage once, not once per reconnection attempt (or per master). */
function reportOnce(options: ConnectionOptions): { error: (error: Error) => void; recovered: () => void } {
  let reported = false;
  return {
    error(error) {
      if (reported) return;
      reported = true;
      options.onError(error);
    },
    recovered: () => (reported = false),
  };
}

function singleConnection(url: string, options: ConnectionOptions): RedisConnection {
  const client = newClient(url, options);
  const report = reportOnce(options);
  client.on('ready', report.recovered);
  client.on('error', report.error);
  return {
    client,
    cluster: false,
    connect: (timeoutMs) => connectInBackground(() => client.connect(), timeoutMs),
    async ping() {
      await command(client, () => client.ping(), THE_SERVER);
    },
    async close() {
      // close waits for replies in flight; with Redis gone there are none to wait for.
      if (client.isReady) await client.close();
      else if (client.isOpen) client.destroy();
    },
  };
}

function newClient(url: string, options: ConnectionOptions) {
  return createClient({
    url,
    disableOfflineQueue: true,
    socket: { connectTimeout: options.connectTimeoutMs, reconnectStrategy: reconnectDelay },
    // node-redis (6.x) arms its own 5 s AbortSignal.timeout on every command unless told not to;
    // the watchdog below does that job for all commands at once.
    commandOptions: { timeout: 0 },
  });
}

function clusterConnection(cluster: ClusterClient, health: MasterHealth, options: ConnectionOptions): RedisConnection {
  const report = reportOnce(options);
  cluster.on('node-ready', report.recovered);
  cluster.on('error', report.error);
  cluster.on('node-error', report.error);
  let closed = false;
  return {
    client: cluster,
    cluster: true,
    connect: (timeoutMs) => connectInBackground(() => connectCluster(cluster, () => closed), timeoutMs),
    async ping() {
      const masters = cluster.isReady ? cluster.masters : [];
      if (masters.length === 0)
        throw new StoreUnavailableError('The store is unavailable: not connected to the cluster yet');
      // Each master on its own: one that is away (or frozen, past the command timeout) fails only its share.
      // CLUSTER INFO rather than PING: a master answers PING even once the cluster is down and refuses every key.
      const answers = await Promise.allSettled(
        masters.map(async (master) => {
          const client = master.client;
          // Known away: its own probe notices its return; a check here would only wait out the timeout again.
          if (!client?.isReady || health.isAway(master.address)) throw new Error('unreachable');
          const info = String(
            // Named by its master: a check waiting there is given up once the master is counted away, and the
            // readiness report (which the dashboard's overview waits for) never waits out the timeout behind it.
            await command(cluster, () => client.sendCommand(['CLUSTER', 'INFO']), { master: master.address }).catch(
              (error: unknown) => {
                if (error instanceof StoreUnavailableError) health.suspect([master.address]);
                throw error;
              },
            ),
          );
          if (!info.includes('cluster_state:ok')) throw new Error('cluster down');
        }),
      );
      const away = answers.filter((answer) => answer.status === 'rejected').length;
      if (away === masters.length)
        throw new StoreUnavailableError('The store is unavailable: no master of the cluster answers');
      if (away > 0)
        throw new PartialStoreOutage(
          `${away} of ${masters.length} masters of the cluster do not answer: calls of the agents stored there ` +
            `are refused`,
        );
    },
    async close() {
      closed = true;
      health.close();
      if (!cluster.isOpen) return;
      const reachable = cluster.masters.every((master) => master.client?.isReady);
      if (cluster.isReady && reachable) await cluster.close();
      else cluster.destroy();
    },
  };
}

function newCluster(address: Extract<RedisAddress, { kind: 'cluster' }>, options: ConnectionOptions) {
  return createCluster({
    rootNodes: address.seeds.map((seed) => ({ socket: { host: seed.host, port: seed.port } })),
    // Applied to every node the client discovers, not only to the seeds.
    defaults: {
      ...(address.username === undefined ? {} : { username: address.username }),
      ...(address.password === undefined ? {} : { password: address.password }),
      disableOfflineQueue: true,
      socket: {
        connectTimeout: options.connectTimeoutMs,
        reconnectStrategy: reconnectDelay,
        ...(address.tls ? { tls: true as const } : {}),
      },
    },
    commandOptions: { timeout: 0 },
  });
}

/**
 * Discovers the cluster from its seeds, again and again with backoff until
 * one answers: unlike one client, a cluster client gives up when no seed is
 * reachable, and the gateway must not.
 */
async function connectCluster(cluster: ClusterClient, closed: () => boolean): Promise<void> {
  for (let attempt = 0; !closed(); attempt++) {
    try {
      await cluster.connect();
      // Closed while discovering: nothing is to stay connected.
      if (closed()) cluster.destroy();
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, reconnectDelay(attempt)).unref());
    }
  }
}

/**
 * Fails commands that get no answer within the timeout (a Redis that is
 * connected but hung). node-redis's own command timeout arms an
 * AbortSignal.timeout per command whose timer cannot be cancelled: every
 * command then builds a TimeoutError seconds later, answered or not, a
 * measurable share of the gateway's CPU under load. One sweep over the
 * commands in flight does the same job for all of them.
 *
 * On a cluster it also keeps each master's commands apart (`MasterHealth`):
 * a command whose keys live on a master counted away fails at once, one
 * that has waited long gets its masters asked whether they answer, and when
 * a master is counted away the commands waiting on it are given up then.
 */
class CommandWatchdog {
  readonly #pending = new Set<PendingCommand>();
  readonly #suspectMs: number;
  #sweeper: NodeJS.Timeout | undefined;

  constructor(
    private readonly timeoutMs: number,
    readonly health?: MasterHealth,
  ) {
    this.#suspectMs = health ? suspectAfterMs(timeoutMs) : Infinity;
    health?.onAway((address) => this.#giveUp(address));
  }

  /** `send`'s answer, or its failure (or the timeout's) as `failure` makes it: one promise per command. */
  run<T>(send: () => Promise<T>, failure: (error: unknown) => unknown, route: RouteKeys): Promise<T> {
    const masters = isMasterRoute(route) ? [route.master] : this.health?.mastersOf(route);
    const refusal = masters && this.health?.refusal(masters);
    if (refusal) return Promise.reject(refusal);
    return new Promise<T>((resolve, reject) => {
      const entry: PendingCommand = {
        startedAt: performance.now(),
        masters,
        suspected: false,
        fail: (error: Error) => reject(failure(error)),
      };
      this.#pending.add(entry);
      this.#sweeper ??= setInterval(() => this.#sweep(), Math.min(100, this.timeoutMs, this.#suspectMs)).unref();
      const settled = (): boolean => this.#pending.delete(entry);
      let sent: Promise<T>;
      try {
        sent = send();
      } catch (error) {
        settled();
        reject(failure(error));
        return;
      }
      sent.then(
        (value) => {
          settled();
          resolve(value);
        },
        (error: unknown) => {
          settled();
          reject(failure(error));
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
    const now = performance.now();
    const overdue = now - this.timeoutMs;
    const suspect = now - this.#suspectMs;
    for (const entry of this.#pending) {
      if (entry.startedAt <= overdue) {
        this.#pending.delete(entry);
        entry.fail(new Error(`no answer within ${this.timeoutMs} ms`));
      } else if (entry.startedAt <= suspect && !entry.suspected) {
        entry.suspected = true;
        this.health?.suspect(entry.masters);
      }
    }
  }

  /** The commands waiting on a master counted away: failed now, as they would be at the timeout. */
  #giveUp(address: string): void {
    for (const entry of this.#pending) {
      if (!entry.masters?.includes(address)) continue;
      this.#pending.delete(entry);
      entry.fail(new Error(`the Redis Cluster master ${address} does not answer`));
    }
  }
}

interface PendingCommand {
  startedAt: number;
  /** The masters of the command's keys, when known. */
  masters: readonly string[] | undefined;
  /** Whether its masters were asked already. */
  suspected: boolean;
  fail: (error: Error) => void;
}

/**
 * The key (or keys) a command reads or writes, or the master it is sent to: on a cluster, where it goes.
 * Required of every command (issue 25, finding 12): one whose keys are not named would wait out the command
 * timeout on a frozen master, and go on being sent there while it is counted away.
 */
export type RouteKeys = string | readonly string[] | { readonly master: string };

/** The route of a command for the one server there is (a single Redis's PING): no cluster master to name. */
const THE_SERVER: RouteKeys = { master: 'the Redis server' };

function isMasterRoute(route: RouteKeys): route is { readonly master: string } {
  return typeof route === 'object' && 'master' in route;
}

const watchdogs = new WeakMap<object, CommandWatchdog>();

/**
 * Starts connecting and waits at most `timeoutMs` for the first connection.
 * An unreachable Redis does not stop start-up: the client keeps trying in the
 * background and readiness reports the store unhealthy meanwhile.
 */
export async function connectInBackground(connect: () => Promise<unknown>, timeoutMs: number): Promise<void> {
  const connecting = connect().then(
    () => undefined,
    () => undefined, // rejected only when the client is closed before it ever connected
  );
  let timer: NodeJS.Timeout | undefined;
  const gaveUp = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
  await Promise.race([connecting, gaveUp]);
  clearTimeout(timer);
}

/**
 * Replies that mean "not now" rather than "wrong": a cluster missing a master
 * (CLUSTERDOWN), a slot in migration (TRYAGAIN), a server still loading its
 * data (LOADING), a replica cut off from its master (MASTERDOWN).
 */
const OUTAGE_REPLY = /^(CLUSTERDOWN|TRYAGAIN|LOADING|MASTERDOWN)\b/;

/**
 * Runs a command, turning every failure to reach Redis into a typed
 * StoreUnavailableError. An error reply from Redis itself is a bug, not an
 * outage, and is rethrown unchanged, unless it is one of the outage replies.
 * Not async: the watchdog's promise is the command's, one promise less per
 * command on the hot path. `route` names the command's keys: on a cluster,
 * a command whose master is counted away then fails at once.
 */
export function command<T>(client: RedisClient, run: () => Promise<T>, route: RouteKeys): Promise<T> {
  const watchdog = watchdogs.get(client);
  if (watchdog) return watchdog.run(run, storeFailure, route);
  try {
    return run().catch((error: unknown) => Promise.reject(storeFailure(error)));
  } catch (error) {
    return Promise.reject(storeFailure(error));
  }
}

/**
 * A read of keys spread over the masters of a cluster, each key read on its
 * own master: the agent list, the audit view of everything, usage over time,
 * the cache generation. Every read that spans the masters goes through here
 * (issue 25, finding 12). It names all its keys, so it is refused at once
 * while a master of any of them is counted away, and given up the moment one
 * is counted away while it waits, instead of waiting out the command timeout.
 * All or nothing: an answer silently missing one master's share (a shorter
 * agent list, usage totals too low) would mislead whoever reads it. On one
 * Redis it is the same commands as before.
 */
export function acrossMasters<T>(
  client: RedisClient,
  keys: readonly string[],
  read: (key: string, index: number) => Promise<T>,
): Promise<T[]> {
  return command(client, () => Promise.all(keys.map(read)), keys);
}

/**
 * Throws at once, sending nothing, when a master of any of these keys is
 * counted away: a write touching several masters (an agent's record, its
 * listing index, its identities) is refused whole before its first part is
 * written, rather than half-written. Does nothing on one Redis.
 */
export function refuseWhileAway(client: RedisClient, keys: readonly string[]): void {
  const health = watchdogs.get(client)?.health;
  const masters = health?.mastersOf(keys);
  const refusal = masters && health?.refusal(masters);
  if (refusal) throw refusal;
}

/**
 * PUBLISH names a channel, not a key: node-redis sends it to each node in
 * turn, a frozen master included, where it would wait out the command
 * timeout. On a cluster it is sent to a master thought to answer instead,
 * named by that master (every node hands a message on to the subscribers of
 * the others).
 */
export function publish(client: RedisClient, channel: string, message: string): Promise<number> {
  if (!('masters' in client)) return command(client, () => client.publish(channel, message), THE_SERVER);
  const health = watchdogs.get(client)?.health;
  const master = client.masters.find((node) => node.client?.isReady && !health?.isAway(node.address));
  if (master?.client === undefined)
    return Promise.reject(new StoreUnavailableError('The store is unavailable: no master of the cluster answers'));
  const node = master.client;
  return command(client, () => node.publish(channel, message), { master: master.address });
}

/** The error a failed command is reported with (see `command`). */
function storeFailure(error: unknown): unknown {
  if (error instanceof ErrorReply && !OUTAGE_REPLY.test(error.message)) return error;
  const reason = error instanceof Error ? error.message : String(error);
  return new StoreUnavailableError(`The store is unavailable: ${reason}`, { cause: error });
}
