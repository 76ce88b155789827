import { defineConfig } from 'tsup';
// The built plugin, as a user's tsup.config.ts would import `@tollgate/host-kit/tsup`.
import { agentTools } from '../../dist/tsup.js';

export default defineConfig({
  entry: ['broken.controller.ts'],
  format: ['esm'],
  outDir: '../../node_modules/.cache/build-fails-dist',
  esbuildPlugins: [agentTools({ out: false })],
});
