import { asAgentToolManifest } from '@tollgate/host-kit';
// Written by the build (the host-kit tsup plugin, or `pnpm agent-tools`); committed, `pnpm agent-tools:check` in CI.
import manifest from '../agent-tools.json' with { type: 'json' };

/** The annotated controllers' tools and binding plan. */
export const agentTools = asAgentToolManifest(manifest);
