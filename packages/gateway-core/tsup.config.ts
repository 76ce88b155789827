import { defineConfig } from 'tsup';

export default defineConfig({
  // `testing` is a separate entry so the runtime never loads test helpers.
  // The embedding worker is one too: `new Worker` loads it by file, beside the bundle.
  entry: {
    index: 'src/index.ts',
    // The public groups, also namespaces of the main entry, and the app's internal entry.
    errors: 'src/api/errors.ts',
    store: 'src/api/store.ts',
    internal: 'src/internal.ts',
    'testing/index': 'src/testing/index.ts',
    'local-model-worker': 'src/embedding/local-model-worker.ts',
    // Large answers are decoded in a piscina pool, which loads this file by name.
    'answer-worker': 'src/answer/answer-worker.ts',
  },
  format: ['esm'],
  // The wire contract is bundled, code and types: a private workspace package (see packages/contract/README.md).
  dts: { resolve: ['@tollgate/contract'] },
  noExternal: ['@tollgate/contract'],
  sourcemap: true,
  clean: true,
  target: 'node22',
  // The store contract suite in `testing` runs inside the consumer's vitest: never bundle it.
  external: ['vitest'],
});
