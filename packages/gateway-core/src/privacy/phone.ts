/**
 * Phone numbers are told from the other numbers in API responses (ids, years,
 * dates, prices, counts) by their shape, not by their digits alone:
 *
 * - international: a `+`, then 8–15 digits (E.164) in groups separated by single
 *   spaces, dots or dashes, with at most one parenthesized group;
 * - national: 9–12 digits in 2–4-digit groups with one kind of separator that
 *   start with a trunk `0` (`020 7946 0958`, `06 12 34 56 78`) or a
 *   parenthesized area code (`(555) 123-4567`), or the North American 3-3-4
 *   shape (`555-123-4567`).
 *
 * A bare run of digits is never a phone number here: it is far more often an
 * order number or a timestamp. Fields named for phones are a job for field rules.
 */

const SEPARATORS = /[ .-]/;

/** The separators and groups of a candidate, without its leading `+`. */
function groupsOf(text: string): { groups: string[]; separators: string[] } {
  const groups: string[] = [];
  const separators: string[] = [];
  let group = '';
  for (const char of text) {
    if (SEPARATORS.test(char)) {
      groups.push(group);
      separators.push(char);
      group = '';
    } else {
      group += char;
    }
  }
  groups.push(group);
  return { groups, separators };
}

function countDigits(text: string): number {
  let digits = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 48 && code <= 57) digits++;
  }
  return digits;
}

const DIGITS = /^\d+$/;
// `(555)`, and the optional trunk prefix written `+44 (0)20 …`.
const PARENTHESIZED = /^\(\d+\)\d*$/;

function isInternationalNumber(candidate: string): boolean {
  const digits = countDigits(candidate);
  if (digits < 8 || digits > 15) return false;
  const { groups } = groupsOf(candidate.slice(1));
  let parenthesized = 0;
  for (const group of groups) {
    if (DIGITS.test(group)) continue;
    if (!PARENTHESIZED.test(group)) return false;
    parenthesized++;
  }
  return parenthesized <= 1;
}

function isNationalNumber(candidate: string): boolean {
  const digits = countDigits(candidate);
  if (digits < 9 || digits > 12) return false;
  const areaCode = /^\(\d{2,4}\) ?/.exec(candidate)?.[0];
  const rest = areaCode === undefined ? candidate : candidate.slice(areaCode.length);
  const { groups, separators } = groupsOf(rest);
  if (!groups.every((group) => DIGITS.test(group))) return false;
  if (separators.some((separator) => separator !== separators[0])) return false;
  // No dialling code is all zeros: `000-12-3456` is a placeholder, not a number.
  if (/^\(?0+[) .-]/.test(candidate)) return false;
  if (areaCode !== undefined || candidate.startsWith('0')) return true;
  const [a, b, c] = groups;
  return groups.length === 3 && a?.length === 3 && b?.length === 3 && c?.length === 4 && a[0] !== '1';
}

/**
 * The candidate patterns are greedy and may take in a trailing group that is
 * not part of the number (`+44 20 7946 0958 2024`); drop groups from the end
 * until the shape holds.
 */
function longestAccepted(candidate: string, isNumber: (text: string) => boolean): number {
  let text = candidate;
  for (;;) {
    if (isNumber(text)) return text.length;
    const shorter = text.replace(/[ ().-]+\d+$/, '');
    if (shorter === text || shorter.length < 8) return 0;
    text = shorter;
  }
}

export const acceptInternationalPhone = (candidate: string): number =>
  longestAccepted(candidate, isInternationalNumber);
export const acceptNationalPhone = (candidate: string): number => longestAccepted(candidate, isNationalNumber);
