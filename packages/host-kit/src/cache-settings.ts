import { MAX_SIGNIFICANT_TERMS as MAX_TERMS, MAX_SYNONYMS, MAX_TERM_LENGTH } from '@tollgate/contract';
import type { ToolCacheSettings } from './tool-definition.js';

/**
 * Checks a tool's `cache` option, shared by both marking forms. Returns the
 * settings with defaults applied (null when the option is absent or null),
 * or why they are wrong. The gateway checks the same rules when it reads
 * /gw/schema; failing here fails the build or startup instead.
 */
export function toCacheSettings(value: unknown): { settings: ToolCacheSettings | null; problem: string | null } {
  if (value === undefined || value === null) return { settings: null, problem: null };
  if (typeof value !== 'object' || Array.isArray(value))
    return invalid('cache must be an object: { semantic?: boolean, significantTerms?: string[] }');
  const { semantic = false, significantTerms = [], ...rest } = value as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length > 0)
    return invalid(`cache has unknown field${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}`);
  if (typeof semantic !== 'boolean') return invalid('cache.semantic must be true or false');
  if (
    !Array.isArray(significantTerms) ||
    significantTerms.length > MAX_TERMS ||
    !significantTerms.every(isTermOrSynonyms)
  ) {
    return invalid(
      `cache.significantTerms must be at most ${MAX_TERMS} non-blank strings (up to ${MAX_TERM_LENGTH} ` +
        `characters) or arrays of up to ${MAX_SYNONYMS} such synonyms`,
    );
  }
  const terms = significantTerms.map((term: string | string[]) =>
    typeof term === 'string' ? term.trim() : term.map((synonym) => synonym.trim()),
  );
  return { settings: { semantic, significantTerms: terms }, problem: null };
}

function isTerm(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '' && value.trim().length <= MAX_TERM_LENGTH;
}

function isTermOrSynonyms(value: unknown): boolean {
  return (
    isTerm(value) || (Array.isArray(value) && value.length > 0 && value.length <= MAX_SYNONYMS && value.every(isTerm))
  );
}

function invalid(problem: string): { settings: null; problem: string } {
  return { settings: null, problem };
}
