import { ConfigError } from '../errors.js';
import { createMemoryStore } from './memory/index.js';
import type { StoreOptions } from './options.js';
import type { GatewayStore } from './ports.js';
import { isClusterAddress, parseRedisAddress, REDIS_SCHEMES } from './redis/address.js';
import { createRedisStore } from './redis/index.js';

const REDIS_URL = `must be a ${REDIS_SCHEMES} URL`;

/**
 * Checks a store address: nothing (or blank) means the embedded in-memory
 * store and gives `undefined`; otherwise it must be a `redis://` or
 * `rediss://` URL naming a host, or a Redis Cluster's seed nodes
 * (`redis+cluster://host:port,host:port`, see `redis/address.ts`), returned
 * trimmed. Anything else is a ConfigError at `store.url`, which never
 * repeats the address: it may carry a password.
 */
export function parseStoreUrl(address: string | undefined): string | undefined {
  const trimmed = address?.trim() ?? '';
  if (trimmed === '') return undefined;
  const refuse = (message: string) => new ConfigError([{ path: 'store.url', message }]);
  if (isClusterAddress(trimmed)) {
    try {
      parseRedisAddress(trimmed);
    } catch (error) {
      throw refuse(`${REDIS_URL} (${(error as Error).message})`);
    }
    return trimmed;
  }
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    throw refuse(`${REDIS_URL} (not a valid address; leave unset for the embedded in-memory store)`);
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    throw refuse(`${REDIS_URL} (unsupported scheme "${url.protocol}"; leave unset for the embedded in-memory store)`);
  }
  if (url.hostname === '') throw refuse(`${REDIS_URL} (names no host)`);
  return trimmed;
}

/** The store at `url` (see `parseStoreUrl`): Redis, or the embedded in-memory store when there is none. */
export async function createStore(url: string | undefined, options: StoreOptions = {}): Promise<GatewayStore> {
  const checked = parseStoreUrl(url);
  return checked === undefined ? createMemoryStore(options) : createRedisStore(checked, options);
}
