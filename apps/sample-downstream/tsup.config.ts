import { agentTools } from '@tollgate/host-kit/tsup';
import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/main.ts'],
  format: ['esm'],
  sourcemap: true,
  clean: true,
  target: 'node22',
  // Reads the @AgentTool controllers, writes agent-tools.json, fails the build on a bad annotation.
  esbuildPlugins: [agentTools()],
});
