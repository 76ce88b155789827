import type { InputSchema } from '../tools/definition.js';

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
    if (typeof value === 'string' && isFreeTextProperty(name, schema.properties[name]) && TWO_WORDS.test(value.trim())) {
      text.push([name, value]);
    } else {
      exact[name] = value;
    }
  }
  return { exact, text };
}

function isFreeTextProperty(name: string, property: Record<string, unknown> | undefined): boolean {
  if (!property || property.type !== 'string' || IDENTIFIER_NAME.test(name)) return false;
  return !('enum' in property || 'const' in property || 'format' in property || 'pattern' in property);
}

/** What the model is shown of a text: case and spacing carry no meaning for a lookup. */
export function normalizeText(text: string): string {
  return text.toLowerCase().replace(/\s+/g, ' ').trim();
}
