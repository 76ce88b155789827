// Starting the floor proxy (bench/floor-proxy.mjs) for a run: on a
// redis-server of its own, stopped with the run.
import { fileURLToPath } from 'node:url';
import { startRedisServer } from '@tollgate/gateway-core/testing';
import { listeningLine, onStop, startNode } from './processes.mjs';

const FLOOR_PROXY = fileURLToPath(new URL('../floor-proxy.mjs', import.meta.url));

/**
 * The floor proxy in front of `downstreamUrl`; `mode` 'hit' for a cache hit's
 * floor, `steps` its FLOOR_STEPS (all by default). Resolves with the process
 * and its redis-server.
 */
export async function startFloorProxy(name, downstreamUrl, { mode, steps } = {}) {
  const redis = await startRedisServer();
  onStop(() => redis.stop());
  const env = {
    PORT: '0',
    DOWNSTREAM_URL: downstreamUrl,
    REDIS_URL: redis.url,
    ...(mode && { FLOOR_MODE: mode }),
    ...(steps && { FLOOR_STEPS: steps }),
  };
  const floor = await startNode(name, [FLOOR_PROXY], { env, ready: listeningLine });
  return { ...floor, redis };
}
