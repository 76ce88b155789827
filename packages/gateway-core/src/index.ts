export * from './errors.js';
export { utcDay, nextUtcMidnight } from './time.js';

export type * from './store/ports.js';
export type { StoreOptions } from './store/options.js';
export { DEFAULT_RESERVATION_TTL_MS } from './store/options.js';
export { createStore, STORE_CONFIG_KEY } from './store/create-store.js';
export { createMemoryStore } from './store/memory/index.js';
export { createRedisStore, DEFAULT_KEY_PREFIX } from './store/redis/index.js';
