import { defineProject } from 'vitest/config';

// Process-level tests start real processes (gateway, downstream, redis-server):
// give them time, and run files one at a time so two-core machines are not oversubscribed.
export default defineProject({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    fileParallelism: false,
  },
});
