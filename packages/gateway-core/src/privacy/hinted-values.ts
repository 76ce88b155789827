import { isCardNumber, passesLuhn } from './checksums.js';
import type { DetectorName } from './detectors.js';
import type { KeyHint } from './field-names.js';

/**
 * Whole values, JSON numbers and strings, judged by their shape and what
 * their key says they are. Text inside strings is the scanner's job; this
 * module answers "is this whole value a card, a phone or an SSN number?".
 *
 * A JSON number is at most a card on its own (a payment network's 14–19
 * Luhn-valid digits, see `isCardNumber`; 13-digit numbers are millisecond
 * timestamps from 2001 to 2286, and 13-digit Visa numbers are no longer
 * issued); phone and SSN need their key's hint, because 7–15 bare digits are
 * more often an id, a count or a timestamp in seconds. A number
 * beyond 2^53 has already lost its last digits in parsing; it is judged as
 * parsed, which is what the answer would show.
 */

/** Below this no number is checked at all (the shortest SSN kept as a number, area 001, has 7 digits). */
export const SMALLEST_CANDIDATE = 1_000_000;

/** Longer strings are no single number, whatever their key. */
export const MAX_HINTED_STRING = 40;

/** The detector whose kind a JSON number is, or undefined. */
export function numberKind(
  value: number,
  hint: KeyHint | undefined,
  enabled: ReadonlySet<DetectorName>,
): DetectorName | undefined {
  if (!(value >= SMALLEST_CANDIDATE) || !Number.isInteger(value)) return undefined;
  const digits = String(value);
  if (!/^\d+$/.test(digits)) return undefined; // 1e+21 and beyond
  if (enabled.has('card') && (hint === 'card' ? isHintedCard(digits) : digits.length >= 14 && isCardNumber(digits)))
    return 'card';
  if (hint === 'phone' && enabled.has('phone') && isPhoneLength(digits)) return 'phone';
  // An SSN stored as a number loses its leading zeros: 001-01-0001 is 1010001.
  if (hint === 'ssn' && enabled.has('ssn') && digits.length <= 9 && isSsnDigits(digits.padStart(9, '0'))) return 'ssn';
  return undefined;
}

/**
 * The detector whose kind a whole string under a hinting key is, when the
 * scanner found nothing in it: bare or oddly grouped digits (`5551234567`,
 * `123456789`, `4111.1111.1111.1111`) that text alone does not give away.
 */
export function hintedStringKind(
  text: string,
  hint: KeyHint,
  enabled: ReadonlySet<DetectorName>,
): DetectorName | undefined {
  if (!enabled.has(hint) || text.length > MAX_HINTED_STRING) return undefined;
  switch (hint) {
    case 'card': {
      const digits = text.replace(/[ .\-/]/g, '');
      return /^\d+$/.test(digits) && isHintedCard(digits) ? 'card' : undefined;
    }
    case 'phone': {
      if (!/^\+?[\d .()\-/]+$/.test(text)) return undefined;
      return isPhoneLength(text.replace(/\D/g, '')) ? 'phone' : undefined;
    }
    case 'ssn': {
      const match = /^(\d{3})([ .-]?)(\d{2})\2(\d{4})$/.exec(text);
      return match !== null && isSsnDigits(`${match[1]}${match[3]}${match[4]}`) ? 'ssn' : undefined;
    }
  }
}

/** Under a card key the payment-network prefix is not needed, Luhn still is. */
const isHintedCard = (digits: string): boolean => digits.length >= 13 && digits.length <= 19 && passesLuhn(digits);

/** E.164 allows at most 15 digits; 7 is the shortest subscriber number written whole. */
const isPhoneLength = (digits: string): boolean => digits.length >= 7 && digits.length <= 15;

/** Nine digits of an issuable SSN: area not 000, 666 or 9xx; group not 00; serial not 0000. */
export function isSsnDigits(digits: string): boolean {
  return /^(?!000|666|9)\d{3}(?!00)\d{2}(?!0000)\d{4}$/.test(digits);
}
