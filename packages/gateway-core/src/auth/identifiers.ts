import { InvalidInputError, type InvalidField } from '../errors.js';
import type { AgentRecord, ExternalSubject } from '../store/ports.js';

/**
 * The rules for the identifiers an agent is made of (label, scopes, sign-in
 * identities), in one place: the management API, the dashboard, provisioning
 * from a trusted issuer's token and the configuration all judge them here,
 * so no entry point can let through what another refuses.
 */

export const MAX_LABEL_LENGTH = 200;
export const MAX_SCOPE_LENGTH = 128;
export const MAX_SUBJECT_LENGTH = 256;

/**
 * RFC 6749 3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ). No space, so a
 * scope can never read as two once scopes are joined into one claim (the
 * assertion's `scope`): "orders:read admin:all" as one scope would grant
 * `admin:all` to whoever splits it.
 */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

/**
 * Text that reads differently from what it is: controls (NUL, newline, C1),
 * format characters (bidi overrides such as RLO, zero-width characters, BOM),
 * line and paragraph separators, and lone surrogates (not text at all).
 */
const MISLEADING_TEXT = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;

/** Counted in characters as people see them (code points), not UTF-16 units. */
const length = (text: string) => [...text].length;

/** Why a scope is refused, or null. */
export function scopeProblem(scope: string): string | null {
  if (scope === '') return 'must not be empty';
  if (scope.length > MAX_SCOPE_LENGTH) return `must be at most ${MAX_SCOPE_LENGTH} characters`;
  if (!SCOPE_TOKEN.test(scope))
    return 'must be an OAuth scope token: printable ASCII without space, " or \\ (RFC 6749 3.3)';
  return null;
}

/** Why a label is refused, or null. */
export function labelProblem(label: string): string | null {
  if (label.trim() === '') return 'must not be empty';
  if (length(label) > MAX_LABEL_LENGTH) return `must be at most ${MAX_LABEL_LENGTH} characters`;
  return textProblem(label);
}

/** Why an identity's subject is refused, or null; the same for a subject typed in and one a token carries. */
export function subjectProblem(subject: string): string | null {
  if (subject === '') return 'must not be empty';
  if (length(subject) > MAX_SUBJECT_LENGTH) return `must be at most ${MAX_SUBJECT_LENGTH} characters`;
  return textProblem(subject);
}

/**
 * The text with each character the rules refuse written as `\u{…}`: how a
 * page shows an identifier stored before the rules, so what it holds is seen.
 */
export function showInvisible(text: string): string {
  return text.replace(
    new RegExp(MISLEADING_TEXT.source, 'gu'),
    (char) => `\\u{${char.codePointAt(0)!.toString(16).toUpperCase()}}`,
  );
}

function textProblem(text: string): string | null {
  return MISLEADING_TEXT.test(text)
    ? 'must not contain control, bidi-override, zero-width or other invisible characters'
    : null;
}

/** The identifiers of a new agent or of a change to one. */
export interface AgentIdentifiers {
  label?: string;
  scopes?: readonly string[];
  externalSubjects?: readonly ExternalSubject[];
  /** Write confirmation (a switch): judged here too, as provisioning and the dashboard bypass the API's schema. */
  confirmWrites?: unknown;
}

/**
 * Refuses (InvalidInputError, every field at fault) identifiers that break
 * the rules. Values the agent already holds are not judged again: an agent
 * stored before a rule existed can still be edited without first repairing
 * what the edit does not touch (and the stored value changes nothing it did
 * not already do).
 */
export function checkAgentIdentifiers(
  input: AgentIdentifiers,
  stored?: Pick<AgentRecord, 'label' | 'scopes' | 'externalSubjects'>,
): void {
  const fields: InvalidField[] = [];
  const judge = (path: string, problem: string | null) => {
    if (problem !== null) fields.push({ path, message: problem });
  };
  if (input.label !== undefined && input.label !== stored?.label) judge('label', labelProblem(input.label));
  const heldScopes = new Set(stored?.scopes);
  input.scopes?.forEach((scope, index) => {
    if (!heldScopes.has(scope)) judge(`scopes.${index}`, scopeProblem(scope));
  });
  input.externalSubjects?.forEach((identity, index) => {
    if (!holds(stored, identity)) judge(`externalSubjects.${index}.subject`, subjectProblem(identity.subject));
  });
  if (input.confirmWrites !== undefined && typeof input.confirmWrites !== 'boolean')
    judge('confirmWrites', 'must be true or false');
  if (fields.length > 0) throw new InvalidInputError('The agent has invalid identifiers', fields);
}

/** Identities of a change that the agent does not hold yet. */
export function newIdentities(
  subjects: readonly ExternalSubject[] | undefined,
  stored?: Pick<AgentRecord, 'externalSubjects'>,
): Array<{ identity: ExternalSubject; index: number }> {
  return (subjects ?? []).flatMap((identity, index) => (holds(stored, identity) ? [] : [{ identity, index }]));
}

function holds(stored: Pick<AgentRecord, 'externalSubjects'> | undefined, identity: ExternalSubject): boolean {
  return (
    stored?.externalSubjects.some((held) => held.issuer === identity.issuer && held.subject === identity.subject) ??
    false
  );
}
