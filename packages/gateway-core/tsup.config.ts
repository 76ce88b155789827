import { defineConfig } from 'tsup';

export default defineConfig({
  // `testing` is a separate entry so the runtime never loads test helpers.
  entry: { index: 'src/index.ts', 'testing/index': 'src/testing/index.ts' },
  format: ['esm'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'node22',
});
