import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { AgentToolManifest } from '../manifest.js';
import { serializeManifest } from './serialize.js';

/** Writes the manifest only when its text changed, so watchers and build caches see no spurious change. */
export function writeManifest(path: string, manifest: AgentToolManifest): boolean {
  const text = serializeManifest(manifest);
  if (existsSync(path) && readFileSync(path, 'utf8') === text) return false;
  writeFileSync(path, text);
  return true;
}

/** Whether the file on disk is exactly what a build would write now. */
export function isManifestCurrent(path: string, manifest: AgentToolManifest): boolean {
  return existsSync(path) && readFileSync(path, 'utf8') === serializeManifest(manifest);
}
