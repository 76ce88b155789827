import { decodedViews } from './decode.js';
import { ENCODED, FEATURE_BITS, NON_ASCII, shapeOf } from './features.js';
import { fold } from './normalise.js';

/**
 * Finds sensitive substrings in one string and replaces them, in one pass over
 * the rules. Returns the very same string when nothing matched, so the common
 * case allocates nothing. Rules run on the folded text (see `normalise.ts`)
 * when the string holds anything but ASCII; what they find is redacted in the
 * original. Strings that may hold URL-, entity- or base64-encoded text are
 * also scanned decoded, and what is found there redacts the encoded original.
 */

/** One way of finding something sensitive: a built-in detector or a configured rule. */
export interface ScanRule {
  /** What was found; the marker is `[REDACTED:<kind>]` and counts are keyed by it. */
  readonly kind: string;
  /** Global (`g`) pattern; shared, so `lastIndex` is reset before every use. */
  readonly regex: RegExp;
  /** Features (see `features.ts`) the text must all have for the pattern to match: no `@`, no email. */
  readonly needs?: number;
  /** Features of which the text must have at least one (`:` or `=` for a `key: value` pair). */
  readonly needsAny?: number;
  /**
   * ASCII digits the text must hold in one group (digits and the ` .-()`
   * between them, see `shapeOf`) for the pattern to find anything it
   * accepts: a card has 13 at least.
   */
  readonly minDigits?: number;
  /** Characters the text must have for the pattern to find anything it accepts. */
  readonly minLength?: number;
  /** Base64-alphabet characters (`A-Za-z0-9+/_-`) the text must have in a row for the pattern to find anything. */
  readonly minRun?: number;
  /** Cheap test that rules the pattern out before running it, after `needs`, `minDigits` and `minLength`. */
  readonly mayMatch?: (text: string) => boolean;
  /**
   * How much of the match is really sensitive: its length, a shorter prefix
   * when the pattern swallowed a neighbour, or 0 to reject (failed checksum).
   */
  readonly accept?: (match: string, groups: RegExpExecArray) => number;
  /**
   * The capture group that is the sensitive part, when the pattern also
   * matches context around it (the word `SSN` before nine digits); needs the
   * `d` flag. Several: the first that took part in the match (a value quoted
   * one way or another, or bare). The whole match when absent.
   */
  readonly group?: number | readonly number[];
  /** Replacement text for a match; the marker when absent. */
  readonly replace?: (match: RegExpExecArray) => string;
}

/** Redaction counts by kind, filled in as strings are scanned. */
export type RedactionCounts = Record<string, number>;

export function redactionMarker(kind: string): string {
  return `[REDACTED:${kind}]`;
}

interface Hit {
  start: number;
  end: number;
  rule: ScanRule;
  match: RegExpExecArray;
  /** The hit is the rule's whole match in the text itself, so the rule's own replacement may be used. */
  whole: boolean;
}

export type Scanner = (text: string, counts: RedactionCounts) => string;

/** A base64 run of URL-encoded text, an entity-encoded escape: two decodings deep, no more. */
const MAX_DECODING_DEPTH = 2;

export function createScanner(rules: readonly ScanRule[]): Scanner {
  if (rules.length === 0) return (text) => text;
  const prepared = prepareRules(rules);
  return (text, counts) => {
    const hits = findHits(prepared, text, 0);
    return hits === undefined ? text : applyHits(text, hits, counts);
  };
}

/**
 * A rule's pre-checks in one object shape for every rule, so the loop over
 * the rules reads them without a polymorphic lookup per rule and string.
 */
interface PreparedRule {
  readonly rule: ScanRule;
  readonly minDigits: number;
  readonly minLength: number;
  readonly minRun: number;
  readonly mayMatch: ((text: string) => boolean) | undefined;
}

interface PreparedRules {
  readonly all: readonly PreparedRule[];
  /**
   * By a string's feature bits: the rules whose `needs` and `needsAny` it
   * meets, in the rules' order (which decides between hits at one start).
   * Filled in as feature sets are met; there are 256 at most.
   */
  readonly byFeatures: (readonly PreparedRule[] | undefined)[];
}

function prepareRules(rules: readonly ScanRule[]): PreparedRules {
  const all = rules.map((rule) => ({
    rule,
    minDigits: rule.minDigits ?? 0,
    minLength: rule.minLength ?? 0,
    minRun: rule.minRun ?? 0,
    mayMatch: rule.mayMatch,
  }));
  return { all, byFeatures: new Array<undefined>(FEATURE_BITS + 1).fill(undefined) };
}

function rulesFor(rules: PreparedRules, features: number): readonly PreparedRule[] {
  let found = rules.byFeatures[features];
  if (found === undefined) {
    found = rules.all.filter(
      ({ rule: { needs, needsAny } }) =>
        (needs === undefined || (features & needs) === needs) &&
        (needsAny === undefined || (features & needsAny) !== 0),
    );
    rules.byFeatures[features] = found;
  }
  return found;
}

/**
 * The hits in `text`, in its own coordinates: found in its folded form, and
 * in each decoded view of that (see `decode.ts`), mapped back.
 */
function findHits(rules: PreparedRules, text: string, depth: number): Hit[] | undefined {
  let shape = shapeOf(text);
  const folded = shape & NON_ASCII ? fold(text) : undefined;
  if (folded) shape = shapeOf(folded.text);
  const subject = folded?.text ?? text;
  const features = shape & FEATURE_BITS;
  const groupDigits = (shape >>> 8) & 0xff;
  const longestRun = shape >>> 16;
  let hits: Hit[] | undefined;
  for (const { rule, minDigits, minLength, minRun, mayMatch } of rulesFor(rules, features)) {
    if (groupDigits < minDigits || subject.length < minLength || longestRun < minRun) continue;
    if (mayMatch !== undefined && !mayMatch(subject)) continue;
    hits = collectHits(rule, subject, hits);
  }
  if (depth < MAX_DECODING_DEPTH && features & ENCODED) {
    for (const view of decodedViews(subject)) {
      for (const hit of findHits(rules, view.text, depth + 1) ?? []) {
        (hits ??= []).push({ ...hit, start: view.start(hit.start), end: view.end(hit.end - 1), whole: false });
      }
    }
  }
  if (hits === undefined || folded === undefined) return hits;
  for (const hit of hits) {
    hit.end = folded.end(hit.end - 1);
    hit.start = folded.start(hit.start);
  }
  return hits;
}

/**
 * Each pattern runs over the whole string: the built-in detectors are written
 * to be linear (tested on megabyte-long adversarial strings) and configured
 * rules run on V8's linear-time engine, so no string length makes a scan
 * explode. Scanning in windows was tried and dropped: a token longer than the
 * overlap (a JWT with a large payload) was then found by no window at all.
 */
function collectHits(rule: ScanRule, text: string, hits: Hit[] | undefined): Hit[] | undefined {
  const { regex } = rule;
  regex.lastIndex = 0;
  for (let match = regex.exec(text); match !== null; match = regex.exec(text)) {
    if (match[0].length === 0) {
      regex.lastIndex++;
      continue;
    }
    const length = rule.accept ? rule.accept(match[0], match) : match[0].length;
    const span = rule.group === undefined ? undefined : groupSpan(match, rule.group);
    if (length > 0) {
      const [start, end] = span ?? [match.index, match.index + length];
      (hits ??= []).push({
        start,
        end,
        rule,
        match,
        whole: start === match.index && end === match.index + match[0].length,
      });
    }
    // A refused candidate may hide a real one inside it (`AA00 DE89 3704 …`: the
    // pattern took a word before the IBAN): look again from the next character.
    else regex.lastIndex = match.index + 1;
  }
  return hits;
}

function groupSpan(match: RegExpExecArray, group: number | readonly number[]): [number, number] | undefined {
  for (const index of typeof group === 'number' ? [group] : group) {
    const span = match.indices?.[index];
    if (span) return span;
  }
  return undefined;
}

/**
 * Overlapping hits merge into one redaction (nothing of either is left
 * showing), named after the one that starts first; at the same start the
 * longer wins, then the rule listed first.
 */
function applyHits(text: string, hits: Hit[], counts: RedactionCounts): string {
  hits.sort((a, b) => a.start - b.start || b.end - a.end);
  let output = '';
  let cursor = 0;
  let index = 0;
  while (index < hits.length) {
    const first = hits[index] as Hit;
    let end = first.end;
    let merged = false;
    index++;
    for (let next = hits[index]; next !== undefined && next.start < end; next = hits[++index]) {
      if (next.end > end) {
        end = next.end;
        merged = true;
      }
    }
    const kind = first.rule.kind;
    const replacement =
      !merged && first.whole && first.rule.replace ? first.rule.replace(first.match) : redactionMarker(kind);
    output += text.slice(cursor, first.start) + replacement;
    cursor = end;
    counts[kind] = (counts[kind] ?? 0) + 1;
  }
  return output + text.slice(cursor);
}
