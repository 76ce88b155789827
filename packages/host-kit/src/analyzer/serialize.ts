import type { AgentToolManifest } from '../manifest.js';

/** The on-disk form: stable key order and formatting, so `host-kit check` can compare text and diffs stay small. */
export function serializeManifest(manifest: AgentToolManifest): string {
  return `${JSON.stringify(manifest, null, 2)}\n`;
}
