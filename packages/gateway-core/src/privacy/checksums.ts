/**
 * Check digits that tell real identifiers from look-alikes: a random 16-digit
 * order number passes Luhn one time in ten, a random IBAN-shaped string passes
 * mod-97 one time in ninety-seven.
 */

/** Luhn (ISO/IEC 7812) over a string of digits only. */
export function passesLuhn(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let digit = digits.charCodeAt(i) - 48;
    if (double) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
    double = !double;
  }
  return sum % 10 === 0;
}

/**
 * A payment card number: 13–19 digits, Luhn-valid, with a payment network's
 * prefix. The first digit (ISO/IEC 7812 major industry identifier) is 3–6
 * (Amex/Diners/JCB 3, Visa 4, Mastercard/Maestro 5, Discover/UnionPay/Maestro
 * 6), or 2 for Mir (2200–2204) and the Mastercard 2-series (2221–2720), whose
 * numbers have 16 digits or more. Numbers starting 1 are left alone: that is
 * where millisecond, microsecond and nanosecond timestamps are until 2033, and
 * one in ten passes Luhn; 0 and 7–9 are no payment networks (airline,
 * petroleum, health and national numbering).
 */
export function isCardNumber(digits: string): boolean {
  if (digits.length < 13 || digits.length > 19) return false;
  const first = digits.charCodeAt(0) - 48;
  if (first === 2) {
    const prefix = Number(digits.slice(0, 4));
    if (digits.length < 16 || !((prefix >= 2200 && prefix <= 2204) || (prefix >= 2221 && prefix <= 2720))) return false;
  } else if (first < 3 || first > 6) {
    return false;
  }
  return passesLuhn(digits);
}

/**
 * ISO 13616 mod-97 over a compact, upper-case IBAN: the first four characters
 * move to the end, letters become 10–35, and the number must leave 1. Folded
 * one character at a time so no big integer is needed.
 */
export function passesIbanChecksum(iban: string): boolean {
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  let remainder = 0;
  for (const char of rearranged) {
    const code = char.charCodeAt(0);
    if (code >= 48 && code <= 57) remainder = (remainder * 10 + (code - 48)) % 97;
    else if (code >= 65 && code <= 90) remainder = (remainder * 100 + (code - 55)) % 97;
    else return false;
  }
  return remainder === 1;
}
