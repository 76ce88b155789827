import type { AgentToolManifest } from '../manifest.js';

/**
 * Types an imported `agent-tools.json` (a JSON import widens `"GET"` to
 * `string`, so a plain cast does not compile) after checking that it is a
 * manifest this kit version understands; anything else fails at startup.
 *
 *   import json from '../agent-tools.json' with { type: 'json' };
 *   const manifest = asAgentToolManifest(json);
 */
export function asAgentToolManifest(json: unknown): AgentToolManifest {
  const candidate = json as Partial<Record<keyof AgentToolManifest, unknown>> | null;
  const valid =
    typeof candidate === 'object' &&
    candidate !== null &&
    candidate.version === 1 &&
    typeof candidate.strictNullChecks === 'boolean' &&
    Array.isArray(candidate.tools) &&
    Array.isArray(candidate.controllers);
  if (!valid) throw new TypeError('agent-tools.json is not a version 1 manifest; run `host-kit build`');
  return json as AgentToolManifest;
}
