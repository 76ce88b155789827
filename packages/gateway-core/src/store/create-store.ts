import { ConfigError } from '../errors.js';
import { createMemoryStore } from './memory/index.js';
import type { StoreOptions } from './options.js';
import type { GatewayStore } from './ports.js';
import { createRedisStore } from './redis/index.js';

export const STORE_CONFIG_KEY = 'ConnectionStrings:Store';

/**
 * The store named by `ConnectionStrings:Store`: nothing (or blank) gives the
 * embedded in-memory store, `redis://` or `rediss://` gives Redis, anything
 * else is a ConfigError. The error never repeats the address, which may
 * carry a password.
 */
export async function createStore(connectionString: string | undefined, options: StoreOptions = {}): Promise<GatewayStore> {
  const address = connectionString?.trim() ?? '';
  if (address === '') return createMemoryStore(options);
  return createRedisStore(checkRedisUrl(address), options);
}

function checkRedisUrl(address: string): string {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    throw new ConfigError(STORE_CONFIG_KEY, 'is not a valid address; expected redis://host:port or rediss://host:port');
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    throw new ConfigError(STORE_CONFIG_KEY, `unsupported scheme "${url.protocol}"; expected redis:// or rediss://`);
  }
  if (url.hostname === '') throw new ConfigError(STORE_CONFIG_KEY, 'names no host; expected redis://host:port');
  return address;
}
