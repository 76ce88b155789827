import { availableParallelism } from 'node:os';
import type { ConfigProblem } from '@tollgate/gateway-core/errors';
import { z } from 'zod';

/** More worker processes than this is a typo, not a host. */
export const MAX_WORKERS = 256;

/**
 * `Gw:Http:Workers`: how many gateway processes share the port (Node's
 * cluster module). A whole number, or `auto` for one per core the process
 * may use (`os.availableParallelism()`); default 1, no cluster at all.
 */
export const workersField = (parallelism: () => number = availableParallelism) =>
  z
    .string()
    .trim()
    .regex(/^(auto|\d+)$/i, { error: 'must be a positive whole number or auto' })
    .default('1')
    .transform((value) => (value.toLowerCase() === 'auto' ? parallelism() : Number(value)))
    .refine((count) => count >= 1, { error: 'must be a positive whole number or auto' })
    .refine((count) => count <= MAX_WORKERS, { error: `must be at most ${MAX_WORKERS}` });

/**
 * Each worker is its own process: with the in-memory store each would keep its
 * own sessions, budgets and agents, and a client's calls would land on
 * strangers. More than one worker therefore needs the shared (Redis) store.
 */
export function sharedStoreProblem(
  workers: number | undefined,
  storeConnectionString: string | undefined,
): ConfigProblem | undefined {
  if (workers === undefined || workers <= 1 || storeConnectionString !== undefined) return undefined;
  return {
    path: 'Gw:Http:Workers',
    message:
      `is ${workers}, but more than one worker needs a shared store: set ConnectionStrings:Store to a Redis URL ` +
      `(with the in-memory store each worker would keep its own sessions and budgets)`,
  };
}
