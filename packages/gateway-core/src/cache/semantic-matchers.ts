/**
 * The matchers of the semantic guard (semantic-guard.ts): each reads one kind
 * of fact at a position of a tokenised text, using the word lists of
 * semantic-lexicon.ts.
 */
import {
  GRANULARITY,
  GROUPING_WORDS,
  MULTIPLES,
  NEGATED_WORDS,
  NEGATION_FILLER,
  NEGATION_PHRASES,
  NEGATORS,
  NOT_UN_NEGATIONS,
  OPPOSITES,
  ORDINALS,
  PERIODIC,
  RELATIONS,
  SCALES,
  SMALL_NUMBERS,
  STOP_WORDS,
  TENS,
  TIME_QUALIFIERS,
  TIME_UNITS,
  TIME_WORDS,
  TRAILING_RELATIONS,
  UNITS,
  type SignificantTerm,
} from './semantic-lexicon.js';

export interface Token {
  /** Lower case, apostrophes folded. */
  word: string;
  original: string;
  sentenceStart: boolean;
}

// ---------------------------------------------------------------- tokens

const TOKEN = /[$€£]?[\p{L}\p{N}]+(?:['\-.,/][\p{L}\p{N}]+)*%?|[$€£%+~]/gu;

export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  const folded = text
    .normalize('NFKC')
    .replace(/[’‘`´]/g, "'")
    .replace(/[‐‑‒–—]/g, '-');
  for (const sentence of folded.split(/[.!?;:]+(?:\s+|$)|\n+/)) {
    let first = true;
    for (const match of sentence.matchAll(TOKEN)) {
      tokens.push({ word: match[0].toLowerCase(), original: match[0], sentenceStart: first });
      first = false;
    }
  }
  return tokens;
}

/** Lower case, singular, without a possessive: what is compared of a word. */
export function stem(word: string): string {
  let w = word.toLowerCase().replace(/'s$|s'$|'$/, '');
  if (w.length > 4 && w.endsWith('ies')) return w.slice(0, -3) + 'y';
  if (/(?:ss|x|ch|sh|z)es$/.test(w)) return w.slice(0, -2);
  if (w.length > 3 && w.endsWith('s') && !/(?:ss|us|is)$/.test(w)) w = w.slice(0, -1);
  return w;
}

/**
 * Words with an inner capital or all in capitals ("iPhone", "USB")
 * anywhere; a capitalised word except at a sentence's start.
 */
export function capitalisedEntities(tokens: Token[]): string[] {
  const lettered = tokens.filter((token) => /^\p{L}/u.test(token.original));
  // Title Case or SHOUTING (every word capitalised) says nothing about which words are names.
  const caseCarriesMeaning = !lettered.every((token) => /^\p{Lu}/u.test(token.original));
  const entities: string[] = [];
  for (const token of lettered) {
    const innerCapital = /^.+\p{Lu}/u.test(token.original) && token.original !== token.original.toUpperCase();
    const acronym =
      token.original.length > 1 && token.original === token.original.toUpperCase() && /\p{Lu}/u.test(token.original);
    const proper = /^\p{Lu}/u.test(token.original) && !token.sentenceStart;
    if (STOP_WORDS.has(token.word) || NEGATORS.has(token.word)) continue;
    if (innerCapital || (caseCarriesMeaning && (acronym || proper))) entities.push(stem(token.word));
  }
  return entities;
}

// ---------------------------------------------------------------- relations

function phraseAt(words: string[], i: number, phrase: string): boolean {
  const parts = phrase.split(' ');
  return parts.every((part, k) => words[i + k] === part);
}

type PhraseIndex = Map<string, Array<{ parts: string[]; relation: string }>>;

/** Phrases by their first word, longest first: a token is checked against the few that can start there. */
function indexPhrases(phrases: Array<[phrase: string, relation: string]>): PhraseIndex {
  const index: PhraseIndex = new Map();
  for (const [phrase, relation] of phrases) {
    const parts = phrase.split(' ');
    const list = index.get(parts[0]!) ?? [];
    list.push({ parts, relation });
    index.set(parts[0]!, list);
  }
  for (const list of index.values()) list.sort((x, y) => y.parts.length - x.parts.length);
  return index;
}

const RELATION_INDEX = indexPhrases(RELATIONS);
const TRAILING_INDEX = indexPhrases(TRAILING_RELATIONS);

function matchAt(index: PhraseIndex, words: string[], i: number): { parts: string[]; relation: string } | null {
  for (const entry of index.get(words[i] ?? '') ?? []) {
    if (entry.parts.every((part, k) => words[i + k] === part)) return entry;
  }
  return null;
}

export function relationAt(words: string[], i: number): { relation: string; length: number } | null {
  const match = matchAt(RELATION_INDEX, words, i);
  if (!match) return null;
  // "from" only qualifies a number: "orders from Germany" states no bound.
  if ((words[i] === 'from' || words[i] === 'sub') && !quantityAt(words, i + 1 + (words[i + 1] === 'the' ? 1 : 0)))
    return null;
  return { relation: match.relation, length: match.parts.length };
}

export function trailingRelationAt(words: string[], i: number): { relation: string; length: number } | null {
  const match = matchAt(TRAILING_INDEX, words, i);
  return match ? { relation: match.relation, length: match.parts.length } : null;
}

// ---------------------------------------------------------------- quantities

interface Quantity {
  value: string;
  unit: string;
  length: number;
}

const DIGITS = /^([$€£]?)(\d[\d,]*(?:\.\d+)?)(k|bn)?(%)?$/;
const DIGITS_WITH_UNIT = /^([$€£]?)(\d[\d,]*(?:\.\d+)?)-?(st|nd|rd|th|[a-z]+)$/;

export function quantityAt(words: string[], i: number): Quantity | null {
  const word = words[i];
  if (word === undefined) return null;
  const currencyBefore = word === '$' || word === '€' || word === '£' ? UNITS[word]! : '';
  const start = currencyBefore ? i + 1 : i;
  const parsed = numberAt(words, start);
  if (!parsed) return null;
  let unit = currencyBefore || parsed.unit;
  let length = start - i + parsed.length;
  if (!unit) {
    const next = words[i + length];
    if (next !== undefined && UNITS[next] !== undefined) {
      unit = UNITS[next]!;
      length += 1;
    } else if (next !== undefined && /^\p{L}+$/u.test(next) && !STOP_WORDS.has(next) && !isRelationWord(next)) {
      unit = stem(next);
      length += 1;
    }
  }
  return { value: parsed.value, unit, length };
}

function isRelationWord(word: string): boolean {
  return RELATION_INDEX.has(word) || TRAILING_INDEX.has(word);
}

/** A number in digits (with a currency, a k, a % or a unit stuck to it) or in words. */
function numberAt(words: string[], i: number): { value: string; unit: string; length: number } | null {
  const word = words[i]!;
  const digits = DIGITS.exec(word);
  if (digits) {
    const value =
      Number(digits[2]!.replace(/,/g, '')) * (digits[3] === 'k' ? 1_000 : digits[3] === 'bn' ? 1_000_000_000 : 1);
    const unit = digits[1] ? UNITS[digits[1]]! : digits[4] ? 'percent' : '';
    return { value: String(value), unit, length: 1 };
  }
  const withUnit = DIGITS_WITH_UNIT.exec(word);
  if (withUnit && !withUnit[1]) {
    const value = String(Number(withUnit[2]!.replace(/,/g, '')));
    const suffix = withUnit[3]!;
    if (['st', 'nd', 'rd', 'th'].includes(suffix)) return { value, unit: 'ordinal', length: 1 };
    return { value, unit: suffix === 'in' ? 'inch' : (UNITS[suffix] ?? stem(suffix)), length: 1 };
  }
  if (ORDINALS[word] !== undefined) return { value: String(ORDINALS[word]), unit: 'ordinal', length: 1 };
  if (MULTIPLES[word] !== undefined) return { value: String(MULTIPLES[word]), unit: '', length: 1 };
  return numberInWords(words, i);
}

function numberInWords(words: string[], i: number): { value: string; unit: string; length: number } | null {
  const first = words[i]!;
  if (
    first !== 'a' &&
    !(first.includes('-') ? isNumberWord(first) : first in SMALL_NUMBERS || first in TENS || first in SCALES)
  )
    return null;
  let total = 0;
  let current = 0;
  let length = 0;
  for (let k = i; k < words.length; k++) {
    const word = words[k]!.replace(/-/g, ' ');
    const parts = word.split(' ');
    if (
      !parts.every(
        (part) =>
          part in SMALL_NUMBERS ||
          part in TENS ||
          part in SCALES ||
          (part === 'a' && k === i) ||
          (part === 'and' && length > 0 && k + 1 < words.length && isNumberWord(words[k + 1]!)),
      )
    )
      break;
    for (const part of parts) {
      if (part === 'and') continue;
      if (part === 'a') current = 1;
      else if (part in SMALL_NUMBERS) current += SMALL_NUMBERS[part]!;
      else if (part in TENS) current += TENS[part]!;
      else if (part === 'hundred' || part === 'dozen') current = (current || 1) * SCALES[part]!;
      else {
        total += (current || 1) * SCALES[part]!;
        current = 0;
      }
    }
    length++;
  }
  // "a" alone is no number.
  if (length === 0 || (length === 1 && words[i] === 'a')) return null;
  return { value: String(total + current), unit: '', length };
}

function isNumberWord(word: string): boolean {
  return word.split('-').every((part) => part in SMALL_NUMBERS || part in TENS || part in SCALES);
}

// ---------------------------------------------------------------- negations

export function negationAt(words: string[], i: number): { target: string; length: number } | null {
  const word = words[i]!;
  if (NEGATED_WORDS[word] !== undefined) return { target: NEGATED_WORDS[word]!, length: 1 };
  if (word.startsWith('non-') && word.length > 5) return { target: stem(word.slice(4)), length: 1 };
  if (word.startsWith('un') && word.length >= 6 && !NOT_UN_NEGATIONS.test(word) && /^\p{L}+$/u.test(word))
    return { target: stem(word.slice(2)), length: 1 };
  let length = 0;
  if (NEGATORS.has(word) || word.endsWith("n't") || word === 'cannot') length = 1;
  else {
    const phrase = NEGATION_PHRASES.find((candidate) => phraseAt(words, i, candidate));
    if (phrase) length = phrase.split(' ').length;
  }
  if (length === 0) return null;
  let k = i + length;
  while (k < words.length && (NEGATION_FILLER.has(words[k]!) || NEGATORS.has(words[k]!))) k++;
  const target = words[k];
  return {
    target: target === undefined ? '' : stem(NEGATED_WORDS[target] ?? target),
    length: Math.max(length, k - i + (target === undefined ? 0 : 1)),
  };
}

// ---------------------------------------------------------------- time

export function timeAt(words: string[], i: number): { name: string; length: number } | null {
  const word = words[i]!;
  if (TIME_WORDS[word]) return { name: `time:${TIME_WORDS[word]}`, length: 1 };
  if (PERIODIC[word]) return { name: `time:every-${PERIODIC[word]}`, length: 1 };
  const qualifier = TIME_QUALIFIERS[word];
  const unit = TIME_UNITS[words[i + 1] ?? ''];
  if (qualifier && unit) return { name: `time:${qualifier}-${unit}`, length: 2 };
  return null;
}

// ---------------------------------------------------------------- groupings

/**
 * What a text groups by, or who made what it asks for: the word after "by"
 * or "per" (`by:region`). Two reports grouped differently ("revenue by
 * region" and "by country") or two makers ("vpn by nordvpn", lower case, so
 * no name to the entity rule) are different questions however close their
 * vectors; "by" and "per" say the same. A period after them is a
 * granularity instead (GRANULARITY).
 */
export function groupingAt(words: string[], i: number): string | null {
  if (!GROUPING_WORDS.has(words[i]!)) return null;
  let k = i + 1;
  while (k < words.length && STOP_WORDS.has(words[k]!)) k++;
  const next = words[k];
  if (next === undefined || GRANULARITY[next] || /\d/.test(next) || !/^\p{L}/u.test(next)) return null;
  return `by:${stem(next)}`;
}

// ---------------------------------------------------------------- marked terms

interface CompiledGroup {
  name: string;
  /** One-word terms, as written and singular. */
  words: string[];
  phrases: Array<{ parts: string[]; stems: string[] }>;
}

function compileGroups(groups: readonly (readonly string[])[]): CompiledGroup[] {
  return groups.map((group) => {
    const compiled: CompiledGroup = { name: group[0]!.toLowerCase(), words: [], phrases: [] };
    for (const term of group) {
      const parts = term
        .toLowerCase()
        .split(/[\s-]+/)
        .filter(Boolean);
      if (parts.length === 1) compiled.words.push(parts[0]!, stem(parts[0]!));
      else if (parts.length > 1) compiled.phrases.push({ parts, stems: parts.map(stem) });
    }
    return compiled;
  });
}

const COMPILED_OPPOSITES = compileGroups(OPPOSITES);
/** A tool's terms compiled once: its definition keeps the same array from one call to the next. */
const compiledTerms = new WeakMap<readonly SignificantTerm[], CompiledGroup[]>();

function compiledFor(significantTerms: readonly SignificantTerm[]): CompiledGroup[] {
  let compiled = compiledTerms.get(significantTerms);
  if (!compiled) {
    compiled = compileGroups(significantTerms.map((term) => (typeof term === 'string' ? [term] : term)));
    compiledTerms.set(significantTerms, compiled);
  }
  return compiled;
}

export function markedTerms(unsplit: string[], significantTerms: readonly SignificantTerm[]): string[] {
  // "left-handed", "usb-c", "sw-ide": a term inside a hyphenated word counts, and "low-cost" matches "low cost".
  const words = unsplit.flatMap((word) => word.split('-')).filter(Boolean);
  const stems = words.map(stem);
  // One-word terms are looked up, so a long text with many terms costs its length plus their number.
  const present = new Set([...words, ...stems]);
  const found: string[] = [];
  for (const group of [...COMPILED_OPPOSITES, ...compiledFor(significantTerms)]) {
    if (
      group.words.some((word) => present.has(word)) ||
      group.phrases.some((phrase) => containsPhrase(words, stems, present, phrase))
    )
      found.push(group.name);
  }
  return found;
}

function containsPhrase(
  words: string[],
  stems: string[],
  present: Set<string>,
  phrase: { parts: string[]; stems: string[] },
): boolean {
  if (!present.has(phrase.parts[0]!) && !present.has(phrase.stems[0]!)) return false;
  for (let i = 0; i + phrase.parts.length <= words.length; i++) {
    if (phrase.parts.every((part, k) => words[i + k] === part || stems[i + k] === phrase.stems[k])) return true;
  }
  return false;
}
