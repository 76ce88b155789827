import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startRedisCluster, type RedisCluster } from './redis-cluster.js';
import { isRedisServerAvailable } from './redis-server.js';

/** Longer than any short connect timeout, and about what a loaded two-core CI machine stalls a process for. */
const STALL_MS = 1_500;

/**
 * A test process starved of CPU, made deterministic: right after it first
 * opens a Redis client connection (one that asks for keep-alive, as
 * node-redis does; bare probes do not), it gets no CPU for STALL_MS, so the
 * connection is seen established only after that. This is what the setup
 * that failed with "Connection timeout" under load met between starting the
 * nodes and configuring them.
 */
function starveOnceAfterConnecting(): { stalled: () => boolean; stop: () => void } {
  let stalled = false;
  const onSocket = (message: unknown) => {
    const { socket } = message as { socket: Socket };
    if (stalled || !asksForKeepAlive(socket)) return;
    stalled = true;
    // After the client has armed its own timers for this connection, as a descheduled process would see it.
    queueMicrotask(() => {
      const until = performance.now() + STALL_MS;
      while (performance.now() < until) {
        // busy: no timer and no I/O runs meanwhile
      }
    });
  };
  subscribe('net.client.socket', onSocket);
  return { stalled: () => stalled, stop: () => unsubscribe('net.client.socket', onSocket) };
}

function asksForKeepAlive(socket: Socket): boolean {
  const keepAlive = Object.getOwnPropertySymbols(socket).find((symbol) => symbol.description === 'kSetKeepAlive');
  return keepAlive !== undefined && (socket as unknown as Record<symbol, unknown>)[keepAlive] === true;
}

describe.runIf(isRedisServerAvailable())('startRedisCluster', () => {
  let cluster: RedisCluster | undefined;
  let starving: ReturnType<typeof starveOnceAfterConnecting> | undefined;
  afterEach(async () => {
    starving?.stop();
    await cluster?.stop();
  });

  it('forms the cluster when the process gets no CPU for a while right after connecting to a node', async () => {
    starving = starveOnceAfterConnecting();
    cluster = await startRedisCluster();
    starving.stop();
    // Else this test would prove nothing: the stall is what once failed the start-up.
    expect(starving.stalled()).toBe(true);
    expect(cluster.nodes).toHaveLength(3);
    expect(await cluster.masterOf('k')).toBeGreaterThanOrEqual(0);
  }, 90_000);
});
