import { defineConfig } from 'vitest/config';

// One run over every workspace member. Unit tests sit beside the code
// (`src/**/*.test.ts`); process-level tests live under each app's `test/`
// and start the built artifacts, so `pnpm test` builds first.
export default defineConfig({
  test: {
    projects: ['packages/*', 'apps/*', 'bench/vitest.config.mjs', 'scripts/vitest.config.mjs'],
    // The JSON report feeds the one-line summary CI prints (scripts/test-summary.mjs).
    reporters: ['default', ['json', { outputFile: 'test-results/vitest.json' }]],
  },
});
