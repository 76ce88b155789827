export * from './errors.js';
export { utcDay, nextUtcMidnight } from './time.js';
export type * from './store/ports.js';
export type { StoreOptions } from './store/options.js';
export { createMemoryStore } from './store/memory/index.js';
