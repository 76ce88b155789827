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
