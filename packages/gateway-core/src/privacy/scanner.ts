import { fold, type Folded } from './normalise.js';

/**
 * Finds sensitive substrings in one string and replaces them, in one pass over
 * the rules. Returns the very same string when nothing matched, so the common
 * case allocates nothing. Rules run on the folded text (see `normalise.ts`)
 * when the string holds anything but ASCII; what they find is redacted in the
 * original.
 */

/** One way of finding something sensitive: a built-in detector or a configured rule. */
export interface ScanRule {
  /** What was found; the marker is `[REDACTED:<kind>]` and counts are keyed by it. */
  readonly kind: string;
  /** Global (`g`) pattern; shared, so `lastIndex` is reset before every use. */
  readonly regex: RegExp;
  /** Cheap test that rules the pattern out before running it (e.g. no `@`, no email). */
  readonly mayMatch?: (text: string) => boolean;
  /**
   * How much of the match is really sensitive: its length, a shorter prefix
   * when the pattern swallowed a neighbour, or 0 to reject (failed checksum).
   */
  readonly accept?: (match: string) => number;
  /**
   * The capture group that is the sensitive part, when the pattern also
   * matches context around it (the word `SSN` before nine digits); needs the
   * `d` flag. The whole match when absent.
   */
  readonly group?: number;
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
}

export type Scanner = (text: string, counts: RedactionCounts) => string;

export function createScanner(rules: readonly ScanRule[]): Scanner {
  if (rules.length === 0) return (text) => text;
  return (text, counts) => {
    const folded = fold(text);
    const subject = folded?.text ?? text;
    let hits: Hit[] | undefined;
    for (const rule of rules) {
      if (rule.mayMatch && !rule.mayMatch(subject)) continue;
      hits = collectHits(rule, subject, hits);
    }
    return hits === undefined ? text : applyHits(text, hits, counts, folded);
  };
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
    const length = rule.accept ? rule.accept(match[0]) : match[0].length;
    const span = rule.group === undefined ? undefined : match.indices?.[rule.group];
    if (length > 0) (hits ??= []).push(span ? { start: span[0], end: span[1], rule, match } : { start: match.index, end: match.index + length, rule, match });
    // A refused candidate may hide a real one inside it (`AA00 DE89 3704 …`: the
    // pattern took a word before the IBAN): look again from the next character.
    else regex.lastIndex = match.index + 1;
  }
  return hits;
}

/**
 * Overlapping hits merge into one redaction (nothing of either is left
 * showing), named after the one that starts first; at the same start the
 * longer wins, then the rule listed first. Hits are merged where they were
 * found, in the folded text, then mapped to the original characters.
 */
function applyHits(text: string, hits: Hit[], counts: RedactionCounts, folded: Folded | undefined): string {
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
    const whole = !merged && first.start === first.match.index && end === first.start + first.match[0].length;
    const replacement = whole && first.rule.replace ? first.rule.replace(first.match) : redactionMarker(kind);
    const start = folded ? folded.start(first.start) : first.start;
    output += text.slice(cursor, start) + replacement;
    cursor = folded ? folded.end(end - 1) : end;
    counts[kind] = (counts[kind] ?? 0) + 1;
  }
  return output + text.slice(cursor);
}
