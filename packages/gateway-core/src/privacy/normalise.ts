/**
 * What detectors see instead of the text itself when the text holds anything
 * but ASCII: Unicode NFKC (full-width `４１１１` is `4111`, `＠` is `@`), the
 * no-break and thin spaces as a space, every dash and the minus sign as `-`,
 * zero-width characters removed and the ideographic full stop as `.` (IDNA's
 * label separator), so `4111 1111 1111 1111` written with a no-break space,
 * an en dash, zero-width spaces or full-width digits is the card number it
 * shows as, and `alice@example。com` the address. Each character of the folded text remembers the
 * span of the original it came from, so a redaction covers exactly the
 * original characters found, whatever they were.
 *
 * Pure ASCII is returned as is without looking further: only a string holding
 * a non-ASCII character pays for folding, and only one that folding changes
 * pays for the map.
 */

export interface Folded {
  /** The text detectors run on. */
  readonly text: string;
  /** Where in the original the character at index `i` of `text` starts. */
  start(i: number): number;
  /** Where in the original the character at index `i` of `text` ends. */
  end(i: number): number;
}

/** Characters that say nothing but can split a number: zero-width space, joiners, word joiner, BOM, soft hyphen. */
const INVISIBLE = /[\u200B-\u200D\u2060\uFEFF\u00AD]/g;
/** Hyphen, non-breaking hyphen, figure dash, en dash, em dash, horizontal bar, minus sign. */
const DASHES = /[\u2010-\u2015\u2212]/g;
/**
 * The ideographic full stop, which IDNA reads as a dot between domain labels (NFKC gives it for the half-width one).
 */
const IDEOGRAPHIC_STOP = /\u3002/g;
/** Characters NFKC leaves as they are but folding changes. */
const FOLDED_BY_US = /[\u200B-\u200D\u2060\uFEFF\u00AD\u2010-\u2015\u2212\u3002]/;
const NON_ASCII = /[^\x00-\x7F]/;

/** One code point's folded form, or null when folding leaves it; the same few recur, so remembered (bounded). */
const folds = new Map<number, string | null>();
const MAX_FOLDS = 4096;

function foldCodePoint(code: number): string | null {
  let folded = folds.get(code);
  if (folded === undefined) {
    const char = String.fromCodePoint(code);
    const changed = char.normalize('NFKC').replace(DASHES, '-').replace(INVISIBLE, '').replace(IDEOGRAPHIC_STOP, '.');
    folded = changed === char ? null : changed;
    if (folds.size >= MAX_FOLDS) folds.clear();
    folds.set(code, folded);
  }
  return folded;
}

/**
 * The folded text and its map back, or undefined when folding changes
 * nothing. Only the changed characters are recorded, in order; between them
 * the text is copied as is, so the map of a long text with one no-break space
 * is one entry, looked up by binary search.
 */
export function fold(text: string): Folded | undefined {
  if (!NON_ASCII.test(text)) return undefined;
  if (!FOLDED_BY_US.test(text) && text.normalize('NFKC') === text) return undefined;
  const changes: Changes = { at: [], atEnd: [], from: [], to: [] };
  let output = '';
  let copied = 0;
  for (let i = 0; i < text.length; ) {
    if (text.charCodeAt(i) < 0x80) {
      i++;
      continue;
    }
    const code = text.codePointAt(i) as number;
    const length = code > 0xffff ? 2 : 1;
    const folded = foldCodePoint(code);
    if (folded !== null) {
      output += text.slice(copied, i);
      changes.at.push(output.length);
      output += folded;
      changes.atEnd.push(output.length);
      changes.from.push(i);
      changes.to.push(i + length);
      copied = i + length;
    }
    i += length;
  }
  output += text.slice(copied);
  return { text: output, start: (i) => mapBack(changes, i, 0), end: (i) => mapBack(changes, i, 1) };
}

/** For each changed character: its folded form's span in the output, and its own span in the original. */
export interface Changes {
  at: number[];
  atEnd: number[];
  from: number[];
  to: number[];
}

/** Where output character i starts (`after` 0) or ends (`after` 1) in the original. */
export function mapBack(changes: Changes, i: number, after: 0 | 1): number {
  const k = lastChangeAtOrBefore(changes.at, i);
  if (k < 0) return i + after;
  const atEnd = changes.atEnd[k] as number;
  const to = changes.to[k] as number;
  // Inside a folded form: the whole original character. Past it: copied text.
  if (i < atEnd) return after ? to : (changes.from[k] as number);
  return to + (i - atEnd) + after;
}

function lastChangeAtOrBefore(at: readonly number[], i: number): number {
  let low = 0;
  let high = at.length - 1;
  let found = -1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if ((at[middle] as number) <= i) {
      found = middle;
      low = middle + 1;
    } else {
      high = middle - 1;
    }
  }
  return found;
}
