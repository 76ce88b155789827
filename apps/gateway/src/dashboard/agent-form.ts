import { InvalidInputError, SubjectTakenError } from '@tollgate/gateway-core/errors';
import { z } from 'zod';
import { createAgentBody, updateAgentBody } from '../routes/management-schemas.js';

/** A parsed `application/x-www-form-urlencoded` body (`parseBody({ all: true })`). */
export type FormBody = Record<string, string | File | (string | File)[]>;

export interface FieldError {
  field: string;
  message: string;
}

export type FormResult<T> = { ok: true; value: T } | { ok: false; errors: FieldError[] };

const texts = (value: FormBody[string] | undefined): string[] =>
  (Array.isArray(value) ? value : value === undefined ? [] : [value]).filter(
    (item): item is string => typeof item === 'string',
  );

const text = (form: FormBody, name: string): string => texts(form[name])[0] ?? '';

/** A whole number stays a number; anything else goes to the schema as typed, which names the problem. */
function budgetOf(raw: string): unknown {
  const trimmed = raw.trim().replaceAll(/[\s_,]/g, '');
  return /^-?\d+(\.\d+)?$/.test(trimmed) ? Number(trimmed) : raw;
}

/** Checked scope boxes plus the free "other scopes" field (comma or space separated), without duplicates. */
function scopesOf(form: FormBody): string[] {
  const extra = text(form, 'extraScopes')
    .split(/[\s,]+/)
    .filter(Boolean);
  return [...new Set([...texts(form.scopes), ...extra])];
}

/** "All tools" is `allowedTools: null`, exactly as in the management API. */
function allowedToolsOf(form: FormBody): string[] | null {
  return text(form, 'toolAccess') === 'selected' ? texts(form.allowedTools) : null;
}

/**
 * The rate limit fields: both blank is "no limit" (null) on the edit form,
 * and "the gateway's default" (omitted) on the create form; anything else
 * goes to the schema, which names the field at fault.
 */
function rateLimitOf(form: FormBody, blank: null | undefined) {
  const callsPerMinute = text(form, 'callsPerMinute');
  const burst = text(form, 'burst');
  if (callsPerMinute.trim() === '' && burst.trim() === '') return blank;
  return { callsPerMinute: budgetOf(callsPerMinute), burst: budgetOf(burst) };
}

/**
 * The sign-in identities the form submits: the agent's own, each a box that
 * carries it encoded (kept when checked), then the new ones typed one per
 * line (the issuer, never with a space, then the subject). An identity held
 * is never written into text and read back, so nothing in it (a newline in a
 * subject stored by an earlier version) can split it into two identities on
 * a save; nor does the form judge it again (the service does, new ones only).
 */
function externalSubjectsOf(form: FormBody): Array<{ issuer: string; subject: string }> | null {
  const kept = texts(form.identity).map(decodeIdentity);
  if (kept.includes(null)) return null;
  const all = [...(kept as Identity[]), ...typedIdentities(text(form, 'externalSubjects'))];
  // A box kept and the same identity typed again is one identity.
  return [...new Map(all.map((identity) => [encodeIdentity(identity), identity])).values()];
}

/** New identities as typed: a line without a subject goes to the service with an empty one, which names the problem. */
function typedIdentities(typed: string): Identity[] {
  return typed
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const space = line.search(/\s/);
      return space === -1
        ? { issuer: line, subject: '' }
        : { issuer: line.slice(0, space), subject: line.slice(space).trim() };
    });
}

type Identity = { issuer: string; subject: string };

/** An identity as one opaque form value: JSON (which escapes even a lone surrogate) in base64url. */
export function encodeIdentity({ issuer, subject }: Identity): string {
  return Buffer.from(JSON.stringify([issuer, subject]), 'utf8').toString('base64url');
}

function decodeIdentity(value: string): Identity | null {
  try {
    const decoded: unknown = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
    if (Array.isArray(decoded) && decoded.length === 2 && decoded.every((part) => typeof part === 'string'))
      return { issuer: decoded[0] as string, subject: decoded[1] as string };
  } catch {
    // Not one of ours: refused below like any other altered value.
  }
  return null;
}

const ALTERED_IDENTITY: FieldError = {
  field: 'externalSubjects',
  message: 'an identity box was altered; reload the page',
};

/**
 * The agent form as the management API's JSON body, validated by the very
 * schemas of `POST/PUT /management/agents`: the dashboard has no rules of
 * its own about what an agent may be.
 */
function agentBody(form: FormBody, blankRateLimit: null | undefined) {
  const externalSubjects = externalSubjectsOf(form);
  if (externalSubjects === null) return null;
  return {
    label: text(form, 'label'),
    dailyTokenBudget: budgetOf(text(form, 'dailyTokenBudget')),
    allowedTools: allowedToolsOf(form),
    scopes: scopesOf(form),
    externalSubjects,
    rateLimit: rateLimitOf(form, blankRateLimit),
    // '' is the gateway's setting (null), as in the management API; the schema refuses anything else unknown.
    toolSearch: text(form, 'toolSearch') === '' ? null : text(form, 'toolSearch'),
    pinnedTools: pinnedToolsOf(form),
    // A checkbox: sent ticked, absent unticked, so the form always says which.
    confirmWrites: text(form, 'confirmWrites') !== '',
  };
}

/** Pinned tools, comma or space separated, without duplicates. */
function pinnedToolsOf(form: FormBody): string[] {
  return [
    ...new Set(
      text(form, 'pinnedTools')
        .split(/[\s,]+/)
        .filter(Boolean),
    ),
  ];
}

export function parseCreateAgentForm(form: FormBody): FormResult<z.output<typeof createAgentBody>> {
  const body = agentBody(form, undefined);
  return body === null ? { ok: false, errors: [ALTERED_IDENTITY] } : validated(createAgentBody, body);
}

export function parseUpdateAgentForm(form: FormBody): FormResult<z.output<typeof updateAgentBody>> {
  const body = agentBody(form, null);
  return body === null ? { ok: false, errors: [ALTERED_IDENTITY] } : validated(updateAgentBody, body);
}

/** What the user typed, to show the form again after a refusal. */
export function formValues(form: FormBody) {
  return {
    label: text(form, 'label'),
    dailyTokenBudget: text(form, 'dailyTokenBudget'),
    allowedTools: allowedToolsOf(form),
    scopes: texts(form.scopes),
    callsPerMinute: text(form, 'callsPerMinute'),
    burst: text(form, 'burst'),
    identities: offeredIdentities(form),
    externalSubjects: text(form, 'externalSubjects'),
    toolSearch: text(form, 'toolSearch'),
    pinnedTools: text(form, 'pinnedTools'),
    confirmWrites: text(form, 'confirmWrites') !== '',
  };
}

/** The identity boxes the form offered (`identityOffered`), checked as submitted. */
function offeredIdentities(form: FormBody): Array<Identity & { kept: boolean }> {
  const kept = new Set(texts(form.identity));
  return texts(form.identityOffered).flatMap((value) => {
    const identity = decodeIdentity(value);
    return identity === null ? [] : [{ ...identity, kept: kept.has(value) }];
  });
}

/**
 * A refusal of the service (an untrusted issuer, an identity another agent
 * has) as errors of the form's fields, or null when it is no input problem.
 */
export function serviceFieldErrors(error: unknown): FieldError[] | null {
  if (error instanceof SubjectTakenError) return [{ field: 'externalSubjects', message: error.message }];
  if (!(error instanceof InvalidInputError)) return null;
  return error.fields.map((field) => ({
    field: fieldOf(field.path.split('.').map((part) => (/^\d+$/.test(part) ? Number(part) : part))),
    message: field.message,
  }));
}

function validated<T extends z.ZodType>(schema: T, body: unknown): FormResult<z.output<T>> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return { ok: true, value: parsed.data };
  return {
    ok: false,
    errors: parsed.error.issues.map((issue) => ({ field: fieldOf(issue.path), message: issue.message })),
  };
}

/** The form field at fault: an object's member by its dotted path (`rateLimit.burst`), a list's item by the list. */
function fieldOf(path: readonly PropertyKey[]): string {
  const firstItem = path.findIndex((part) => typeof part === 'number');
  const named = firstItem === -1 ? path : path.slice(0, firstItem);
  return named.map(String).join('.') || 'form';
}
