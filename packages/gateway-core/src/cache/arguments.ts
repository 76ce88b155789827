import type { InputSchema } from '../tools/definition.js';
import { stem } from './semantic-guard.js';

/**
 * A call's arguments split for the semantic tier: free text, which may be
 * matched by meaning, and everything else, which must match exactly.
 *
 * Measured with the local model: whole argument strings that differ only in
 * an id score 0.99, and "laptops under 1000 dollars" vs "… 2000 dollars"
 * 0.96, above any paraphrase. So similarity is never trusted with ids,
 * numbers, enums, dates or flags; the numbers inside a text are the
 * semantic guard's to compare (semantic-guard.ts), with their units.
 */
export interface SplitArguments {
  /** Compared exactly: every non-text argument. */
  exact: Record<string, unknown>;
  /** Free-text arguments by name, sorted by name. */
  text: Array<[name: string, value: string]>;
}

/** `id`, `productId`, `order_id`, `customerID`…: identifiers, whatever their value looks like. */
const IDENTIFIER_NAME = /(^id$|Id$|_id$|ID$)/;
const TWO_WORDS = /\S\s+\S/;

/**
 * An argument is free text when its schema property is a plain string (type
 * `string`, no `enum`, `const`, `format` or `pattern`), its name does not
 * name an identifier, and its value has at least two words. A single word
 * has no paraphrase worth finding, and dates, e-mails, codes and ids are
 * single words or carry a format, so they stay exact.
 */
export function splitArguments(schema: InputSchema, args: Record<string, unknown>): SplitArguments {
  const exact: Record<string, unknown> = {};
  const text: Array<[string, string]> = [];
  for (const name of Object.keys(args).sort()) {
    const value = args[name];
    if (
      typeof value === 'string' &&
      isFreeTextProperty(name, schema.properties[name]) &&
      TWO_WORDS.test(value.trim())
    ) {
      text.push([name, value]);
    } else {
      exact[name] = value;
    }
  }
  return { exact, text };
}

function isFreeTextProperty(name: string, property: Record<string, unknown> | undefined): boolean {
  if (property?.type !== 'string' || IDENTIFIER_NAME.test(name)) return false;
  return !('enum' in property || 'const' in property || 'format' in property || 'pattern' in property);
}

/** Words a search can do without: a request's politeness and articles, not what is searched for. */
const FILLER = new Set(
  'a an the please me my i show find search list all any some do does you have need looking look get give want'.split(
    ' ',
  ),
);
const WORD = /[\p{L}\p{N}$€£%]+(?:['\-.,][\p{L}\p{N}]+)*/gu;

/**
 * What the model is shown of a text: its words in lower case and singular,
 * without punctuation or filler. Case, plurals, "a"/"the" and "show me"
 * carry no meaning for a lookup but cost the model several points of
 * similarity; what they could change (names, quantities) the guard compares.
 */
export function normalizeText(text: string): string {
  const words = text.normalize('NFKC').toLowerCase().match(WORD) ?? [];
  const kept = words.filter((word) => !FILLER.has(word)).map(stem);
  return (kept.length > 0 ? kept : words).join(' ');
}
