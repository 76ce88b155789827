/**
 * What a string holds that detectors need, found in one pass over its
 * character codes: a digit, `@`, `:`, `=`, `.`, `+`, a character past ASCII, and
 * whether it may be encoded (see `decode.ts`). Each detector names the
 * characters it cannot match without, so most detectors skip most strings
 * on one integer test, instead of each searching the string for its own
 * character (a dozen searches per string cost more than the loop).
 */
export const DIGIT = 1;
export const AT = 2;
export const COLON = 4;
export const DOT = 8;
export const PLUS = 16;
export const NON_ASCII = 32;
/** A percent escape, an `&`, or a base64-alphabet run of 16 with a character that is not hex or a dash. */
export const ENCODED = 64;
export const EQUALS = 128;

/** Per ASCII code: its feature bit, if any. */
const FEATURE = new Uint8Array(128);
for (let code = 48; code <= 57; code++) FEATURE[code] = DIGIT;
FEATURE[64] = AT;
FEATURE[58] = COLON;
FEATURE[46] = DOT;
FEATURE[43] = PLUS;
FEATURE[61] = EQUALS;
FEATURE[38] = ENCODED;

/** Per ASCII code: 0 outside the base64 alphabets, 1 a hex digit or a dash, 2 any other base64 character. */
const BASE64_CLASS = new Uint8Array(128);
for (const char of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz+/_') BASE64_CLASS[char.charCodeAt(0)] = 2;
for (const char of '0123456789ABCDEFabcdef-') BASE64_CLASS[char.charCodeAt(0)] = 1;

const isHex = (code: number): boolean => code < 128 && BASE64_CLASS[code] === 1 && code !== 45;

/**
 * The features of `text`, as a bit set. UUIDs, hashes and dates
 * are no base64 text, so a hex run does not count as encoded.
 */
export function featuresOf(text: string): number {
  return shapeOf(text) & FEATURE_BITS;
}

/** The feature bits of a `shapeOf` result. */
export const FEATURE_BITS = 0xff;

/** Digit counts and run lengths above this are all the same to the detectors (a card has 19 digits at most). */
const MAX_COUNTED = 0xff;

/**
 * Per ASCII code: 1 for what may stand between the digits of one number (`4111 1111`, `(555) 123-4567`, `10.0.0.1`).
 */
const IN_DIGIT_GROUP = new Uint8Array(128);
for (const char of ' .-()') IN_DIGIT_GROUP[char.charCodeAt(0)] = 1;

/**
 * The features of `text` (the low 8 bits) and, in the same single pass, two
 * lengths, each counted up to 255: the most ASCII digits it holds in one
 * group (`>>> 8 & 0xff`), a run of digits and of the spaces, dots, dashes and
 * parentheses between them, which is all a card, phone, SSN or IPv4 number is
 * made of; and its longest run of base64-alphabet characters (`>>> 16`),
 * which every vendor key format is. So a detector that needs thirteen digits
 * skips `2025-01-15T10:30:00Z` (8 and 6), and one that needs a 15-character
 * token skips prose, without running its pattern.
 */
export function shapeOf(text: string): number {
  let features = 0;
  let groupDigits = 0;
  let mostDigits = 0;
  let run = 0;
  let longestRun = 0;
  let notHex = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    // Lower-case letters and spaces, most of any text, the short way (the same as the general one below).
    if (code >= 0x61 && code <= 0x7a) {
      run++;
      if (code > 0x66) notHex = true;
      if (run >= 16 && notHex) features |= ENCODED;
      if (groupDigits !== 0) {
        if (groupDigits > mostDigits) mostDigits = groupDigits;
        groupDigits = 0;
      }
      continue;
    }
    if (code === 0x20) {
      if (run > longestRun) longestRun = run;
      run = 0;
      notHex = false;
      continue;
    }
    if (code >= 128) {
      features |= NON_ASCII;
      if (run > longestRun) longestRun = run;
      run = 0;
      notHex = false;
      if (groupDigits > mostDigits) mostDigits = groupDigits;
      groupDigits = 0;
      continue;
    }
    const feature = FEATURE[code] as number;
    features |= feature;
    if (feature === DIGIT) groupDigits++;
    else if (IN_DIGIT_GROUP[code] === 0) {
      if (groupDigits > mostDigits) mostDigits = groupDigits;
      groupDigits = 0;
    }
    const kind = BASE64_CLASS[code] as number;
    if (kind === 0) {
      if (run > longestRun) longestRun = run;
      run = 0;
      notHex = false;
      if (code === 37 && isHex(text.charCodeAt(i + 1)) && isHex(text.charCodeAt(i + 2))) features |= ENCODED;
    } else {
      run++;
      if (kind === 2) notHex = true;
      if (run >= 16 && notHex) features |= ENCODED;
    }
  }
  if (groupDigits > mostDigits) mostDigits = groupDigits;
  if (run > longestRun) longestRun = run;
  return features | (Math.min(mostDigits, MAX_COUNTED) << 8) | (Math.min(longestRun, MAX_COUNTED) << 16);
}

/** Whether `text` holds a base64-alphabet run of 16 with a character that is not hex or a dash. */
export function hasBase64Run(text: string): boolean {
  let run = 0;
  let notHex = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const kind = code < 128 ? (BASE64_CLASS[code] as number) : 0;
    if (kind === 0) {
      run = 0;
      notHex = false;
    } else {
      run++;
      if (kind === 2) notHex = true;
      if (run >= 16 && notHex) return true;
    }
  }
  return false;
}
