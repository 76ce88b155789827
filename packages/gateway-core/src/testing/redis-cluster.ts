/**
 * A real, throwaway Redis Cluster for tests: N masters (3 by default) on
 * loopback, no replicas, slots split evenly. Built with CLUSTER ADDSLOTSRANGE
 * and CLUSTER MEET rather than `redis-cli --cluster create`: the same result,
 * a second faster, and no second binary to install.
 *
 * Each node keeps its `nodes.conf` (and, when `persistent`, an
 * append-only file) in its own temporary directory, so `stopNode` and
 * `startNode` take one master away and bring it back with its slots, the
 * way a restarted primary looks to the gateway.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createClient } from 'redis';
import { defaultBinary, freePort, launch, START_TIMEOUT_MS, temporaryDirectory, terminate } from './redis-server.js';

export interface RedisClusterNode {
  readonly port: number;
  /** `redis://127.0.0.1:<port>`: this node alone (for CLUSTER INFO and the like). */
  readonly url: string;
  /** First and last slot this master serves. */
  readonly slots: readonly [number, number];
}

export interface RedisCluster {
  /** `redis+cluster://127.0.0.1:<port>,…`: every master as a seed. */
  readonly url: string;
  readonly nodes: readonly RedisClusterNode[];
  /** Stops one master (SIGTERM: with `persistent`, every acknowledged write is on disk). */
  stopNode(index: number): Promise<void>;
  /** Kills one master outright (SIGKILL): no shutdown, no last write to disk. */
  killNode(index: number): Promise<void>;
  /** Freezes one master (SIGSTOP): its connections stay open and nothing is answered. */
  pauseNode(index: number): void;
  /** Thaws a paused master (SIGCONT). */
  resumeNode(index: number): void;
  /** Starts a stopped master again on its port, with its nodes.conf: it rejoins with its slots. */
  startNode(index: number): Promise<void>;
  /** The index in `nodes` of the master serving a key's slot, asked of a running node (CLUSTER KEYSLOT). */
  masterOf(key: string): Promise<number>;
  /** Resolves once every running node reports `cluster_state:<state>`. */
  waitForState(state: 'ok' | 'fail', timeoutMs?: number): Promise<void>;
  /** Stops every node; safe to call twice. */
  stop(): Promise<void>;
}

export interface RedisClusterOptions {
  /** Default 3. */
  masters?: number;
  /** Path or name of redis-server. Default `REDIS_SERVER_BIN` or `redis-server`. */
  binary?: string;
  /**
   * Keep the data across a node's stop and start: an append-only file,
   * fsynced every second and in full when `stopNode` shuts the node down
   * (SIGTERM), so every acknowledged write survives a stop and start (a
   * crash could lose the last second). Default false.
   */
  persistent?: boolean;
  /**
   * How long the other masters wait before they call an unreachable master
   * failed (and, with no replica to promote, the whole cluster down).
   * Default 2000 ms: short, so a test sees both sides of it within seconds,
   * and long enough that a busy CI machine (gossip delayed by a loaded CPU)
   * does not fail a master that is up.
   */
  nodeTimeoutMs?: number;
  /**
   * One bound for all of start-up (every node answering, the slots assigned
   * and the masters introduced, every node at `cluster_state:ok`), and the
   * default for `waitForState` and `masterOf`. Default 60 s: start-up takes
   * about two seconds, and a loaded machine must make it slow, not failed.
   */
  startTimeoutMs?: number;
}

const SLOTS = 16_384;

interface NodeProcess {
  port: number;
  busPort: number;
  args: string[];
  child: ChildProcess | null;
}

export async function startRedisCluster(options: RedisClusterOptions = {}): Promise<RedisCluster> {
  const binary = options.binary ?? defaultBinary();
  const masters = options.masters ?? 3;
  const startTimeoutMs = options.startTimeoutMs ?? START_TIMEOUT_MS;
  const processes: NodeProcess[] = [];
  for (let i = 0; i < masters; i++) processes.push(await nodeProcess(options));
  const stop = async () => {
    await Promise.all(
      processes.map(async (node) => {
        const running = node.child;
        node.child = null;
        if (running) await terminate(running);
      }),
    );
  };
  try {
    const deadline = Date.now() + startTimeoutMs;
    await Promise.all(
      processes.map(async (node) => (node.child = await launch(binary, node.args, node.port, startTimeoutMs))),
    );
    await formCluster(processes, deadline);
    await waitForState(processes, 'ok', deadline);
  } catch (error) {
    await stop();
    throw error;
  }
  const nodes = processes.map((node, i) => ({
    port: node.port,
    url: nodeUrl(node.port),
    slots: slotRange(i, masters),
  }));
  const cluster: RedisCluster = {
    url: `redis+cluster://${processes.map((node) => `127.0.0.1:${node.port}`).join(',')}`,
    nodes,
    async stopNode(index) {
      const node = processes[index]!;
      const running = node.child;
      node.child = null;
      if (running) await terminate(running);
    },
    async killNode(index) {
      const node = processes[index]!;
      const running = node.child;
      node.child = null;
      if (!running || running.exitCode !== null || running.signalCode !== null) return;
      const exited = once(running, 'exit');
      running.kill('SIGKILL');
      await exited;
    },
    pauseNode: (index) => void processes[index]!.child?.kill('SIGSTOP'),
    resumeNode: (index) => void processes[index]!.child?.kill('SIGCONT'),
    async startNode(index) {
      const node = processes[index]!;
      if (node.child) return;
      node.child = await launch(binary, node.args, node.port, startTimeoutMs);
    },
    async masterOf(key) {
      const running = processes.find((node) => node.child !== null);
      if (!running) throw new Error('no node of the cluster is running');
      const slot = Number(
        await withNode(running.port, Date.now() + startTimeoutMs, `asking the slot of ${key}`, (client) =>
          client.sendCommand(['CLUSTER', 'KEYSLOT', key]),
        ),
      );
      return nodes.findIndex((node) => slot >= node.slots[0] && slot <= node.slots[1]);
    },
    waitForState: (state, timeoutMs = startTimeoutMs) =>
      waitForState(
        processes.filter((node) => node.child !== null),
        state,
        Date.now() + timeoutMs,
      ),
    stop,
  };
  return cluster;
}

async function nodeProcess(options: RedisClusterOptions): Promise<NodeProcess> {
  const [port, busPort] = [await freePort(), await freePort()];
  const dir = temporaryDirectory();
  // everysec, not always: an fsync per write made the contract suite's timing tests miss on a slow disk.
  const persistence = options.persistent
    ? ['--appendonly', 'yes', '--appendfsync', 'everysec']
    : ['--appendonly', 'no'];
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--protected-mode',
    'yes',
    '--save',
    '',
    '--dir',
    dir,
    '--cluster-enabled',
    'yes',
    '--cluster-config-file',
    join(dir, 'nodes.conf'),
    '--cluster-port',
    String(busPort),
    '--cluster-node-timeout',
    String(options.nodeTimeoutMs ?? 2_000),
    ...persistence,
  ];
  return { port, busPort, args, child: null };
}

/** Master i serves an even share of the slots, in order. */
function slotRange(index: number, masters: number): [number, number] {
  const from = Math.floor((index * SLOTS) / masters);
  return [from, Math.floor(((index + 1) * SLOTS) / masters) - 1];
}

/** Gives each master its slots and a distinct config epoch, then introduces them to the first. */
async function formCluster(processes: NodeProcess[], deadline: number): Promise<void> {
  await Promise.all(
    processes.map((node, i) =>
      withNode(node.port, deadline, `assigning master ${i} its slots`, async (client) => {
        const [from, to] = slotRange(i, processes.length);
        await client.sendCommand(['CLUSTER', 'SET-CONFIG-EPOCH', String(i + 1)]);
        await client.sendCommand(['CLUSTER', 'ADDSLOTSRANGE', String(from), String(to)]);
      }),
    ),
  );
  await withNode(processes[0]!.port, deadline, 'introducing the masters (CLUSTER MEET)', async (client) => {
    for (const node of processes.slice(1)) {
      await client.sendCommand(['CLUSTER', 'MEET', '127.0.0.1', String(node.port), String(node.busPort)]);
    }
  });
}

async function waitForState(processes: NodeProcess[], state: 'ok' | 'fail', deadline: number): Promise<void> {
  const startedAt = Date.now();
  for (;;) {
    const states = await Promise.all(processes.map((node) => clusterState(node.port, deadline)));
    if (states.every((s) => s === state)) return;
    if (Date.now() >= deadline)
      throw new Error(
        `Redis Cluster did not reach cluster_state:${state} on every node within ${deadline - startedAt} ms ` +
          `(${states.join(', ')})`,
      );
    await sleep(50);
  }
}

async function clusterState(port: number, deadline: number): Promise<string> {
  try {
    const info = await withNode(port, deadline, 'CLUSTER INFO', (client) => client.sendCommand(['CLUSTER', 'INFO']));
    return /cluster_state:(\w+)/.exec(String(info))?.[1] ?? 'unknown';
  } catch {
    return 'unreachable';
  }
}

/**
 * A client for one node that keeps trying to connect, every 50 ms, with no
 * timeout of its own: the caller's deadline is the only bound. A fixed
 * connect timeout (it was 1 s) failed the whole start-up whenever a loaded
 * machine left this process without CPU for longer than that.
 */
function nodeClient(port: number) {
  return createClient({
    url: nodeUrl(port),
    socket: { reconnectStrategy: () => 50, connectTimeout: 0 },
    // node-redis arms a 5 s timeout per command unless told not to; the deadline bounds them instead.
    commandOptions: { timeout: 0 },
  });
}

/** `use` on a connection to one node; past `deadline`, or on an error, it fails naming `step` and the node. */
async function withNode<T>(
  port: number,
  deadline: number,
  step: string,
  use: (client: ReturnType<typeof nodeClient>) => Promise<T>,
): Promise<T> {
  const client = nodeClient(port);
  let lastError = 'no answer yet';
  client.on('error', (error: Error) => (lastError = error.message));
  const waitMs = Math.max(0, deadline - Date.now());
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`not done within ${waitMs} ms (last error: ${lastError})`)), waitMs);
  });
  try {
    return await Promise.race([client.connect().then(() => use(client)), expired]);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`Redis Cluster: ${step} (redis-server on port ${port}): ${reason}`, { cause: error });
  } finally {
    clearTimeout(timer);
    if (client.isOpen) client.destroy();
  }
}

function nodeUrl(port: number): string {
  return `redis://127.0.0.1:${port}`;
}
