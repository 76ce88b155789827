import { ConfigError } from '../errors.js';
import { createMemoryStore } from './memory/index.js';
import type { StoreOptions } from './options.js';
import type { GatewayStore } from './ports.js';
import { createRedisStore } from './redis/index.js';

const REDIS_URL = 'must be a redis:// or rediss:// URL';

/**
 * Checks a store address: nothing (or blank) means the embedded in-memory
 * store and gives `undefined`; otherwise it must be a `redis://` or
 * `rediss://` URL naming a host, returned trimmed. Anything else is a
 * ConfigError at `store.url`, which never repeats the address: it may carry
 * a password.
 */
export function parseStoreUrl(address: string | undefined): string | undefined {
  const trimmed = address?.trim() ?? '';
  if (trimmed === '') return undefined;
  const refuse = (message: string) => new ConfigError([{ path: 'store.url', message }]);
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
