import { defineConfig } from 'tsup';

export default defineConfig({
  // `index` is the runtime; `cli`, `tsup` and `vite` are build-time entries, the
  // only ones allowed to reach ts-morph or esbuild (see test/dist-entry.test.ts).
  entry: {
    index: 'src/index.ts',
    cli: 'src/cli/main.ts',
    tsup: 'src/tsup-plugin/index.ts',
    vite: 'src/vite-plugin/index.ts',
  },
  // ESM for `import`, CommonJS for `require` (a fresh `npm init` project is CommonJS): see package.json exports.
  format: ['esm', 'cjs'],
  dts: { entry: { index: 'src/index.ts', tsup: 'src/tsup-plugin/index.ts', vite: 'src/vite-plugin/index.ts' } },
  sourcemap: true,
  clean: true,
  target: 'node22',
});
