import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { lowerDecorators } from './src/vite-plugin/index.js';

export default defineConfig({
  // Fixture projects import the kit by name, as users do; at test time that is this source.
  resolve: {
    alias: [{ find: /^@tollgate\/host-kit$/, replacement: fileURLToPath(new URL('./src/index.ts', import.meta.url)) }],
  },
  plugins: [lowerDecorators()],
});
