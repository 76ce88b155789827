import { defineConfig } from 'tsup';

export default defineConfig({
  // The OpenAPI worker is its own entry: `new Worker` loads it by file, beside main.js.
  entry: { main: 'src/main.ts', 'openapi-worker': 'src/registry/openapi-worker.ts' },
  format: ['esm'],
  sourcemap: true,
  clean: true,
  target: 'node22',
});
