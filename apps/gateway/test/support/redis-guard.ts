import { isRedisServerAvailable } from '@tollgate/gateway-core/testing';

/**
 * Whether this file's Redis-backed tests can run. Like gateway-core's own
 * Redis tests: with CI=true a missing redis-server is a failure, never a
 * skip; elsewhere the skip is announced.
 */
export function redisServerAvailable(what: string): boolean {
  const available = isRedisServerAvailable();
  if (!available && process.env.CI === 'true') {
    throw new Error(
      `redis-server is not installed, and CI=true forbids skipping ${what}. Install it (apt-get install redis-server) or set REDIS_SERVER_BIN.`,
    );
  }
  if (!available) console.warn(`\n⚠ redis-server not found: SKIPPING ${what} (set CI=true to make this a failure).\n`);
  return available;
}
