import { SubjectTakenError } from '../errors.js';
import type { AgentPatch, AgentRecord, ExternalSubject } from './ports.js';

/** Rules every agent store follows, so adapters agree on what they return. */

/** Oldest first, ties broken by id, so listings are stable across adapters. */
export function byCreation(a: AgentRecord, b: AgentRecord): number {
  return a.createdAt.localeCompare(b.createdAt) || a.agentId.localeCompare(b.agentId);
}

/** A patch field set to `undefined` means "keep", exactly like an omitted one. */
export function definedFields(patch: AgentPatch): AgentPatch {
  return Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined));
}

/** A record as stored, with the fields added since it was written given their defaults. */
export function withDefaults(
  stored: Omit<AgentRecord, 'externalSubjects' | 'rateLimit'> &
    Partial<Pick<AgentRecord, 'externalSubjects' | 'rateLimit'>>,
): AgentRecord {
  return { ...stored, externalSubjects: stored.externalSubjects ?? [], rateLimit: stored.rateLimit ?? null };
}

/**
 * One string per external identity, for the index that maps identities to
 * agents. An issuer never contains a space (it is a URL, checked on input),
 * so no two identities share a key; the Redis scripts build the same string.
 */
export function subjectKey(subject: ExternalSubject): string {
  return `${subject.issuer} ${subject.subject}`;
}

export function subjectTaken(subject: ExternalSubject, owner: string): SubjectTakenError {
  return new SubjectTakenError(`${subject.subject} at ${subject.issuer} already belongs to agent ${owner}`, owner);
}
