import { fileURLToPath } from 'node:url';
import { defineConfig } from 'tsup';

/**
 * The wire contract is bundled, code and types, from its source: a private
 * workspace package (packages/contract/README.md says why), so the tarball
 * depends on nothing new, and an install from git builds the kit without
 * building the contract first (test/git-install.test.ts).
 */
const contractSource = fileURLToPath(new URL('../contract/src/index.ts', import.meta.url));

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
  dts: {
    entry: { index: 'src/index.ts', tsup: 'src/tsup-plugin/index.ts', vite: 'src/vite-plugin/index.ts' },
    // tsconfig.json maps the name to the same source, so the declarations inline it too.
    compilerOptions: { paths: { '@tollgate/contract': [contractSource] } },
  },
  noExternal: ['@tollgate/contract'],
  esbuildOptions(options) {
    options.alias = { ...options.alias, '@tollgate/contract': contractSource };
  },
  sourcemap: true,
  clean: true,
  target: 'node22',
});
