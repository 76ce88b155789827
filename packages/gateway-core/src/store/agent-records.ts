import type { AgentPatch, AgentRecord } from './ports.js';

/** Rules every agent store follows, so adapters agree on what they return. */

/** Oldest first, ties broken by id, so listings are stable across adapters. */
export function byCreation(a: AgentRecord, b: AgentRecord): number {
  return a.createdAt.localeCompare(b.createdAt) || a.agentId.localeCompare(b.agentId);
}

/** A patch field set to `undefined` means "keep", exactly like an omitted one. */
export function definedFields(patch: AgentPatch): AgentPatch {
  return Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined));
}
