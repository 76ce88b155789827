/**
 * E-mail addresses, internationalised ones included (RFC 6531/6532): the
 * local part and the domain labels may hold any letter, digit or combining
 * mark, so a domain written in Cyrillic or Greek look-alikes (`аlice@exаmple.com`
 * with a Cyrillic `а`) is simply an internationalised domain and is found as
 * one. No confusables fold is needed for detection: nothing is compared with a
 * list of known domains, so a look-alike letter is still a letter. Full-width
 * forms (`＠`, `ｅｘａｍｐｌｅ`) and the ideographic full stop between labels
 * (`example。com`, which IDNA reads as a dot) are folded before (see
 * `normalise.ts`); punycode labels (`xn--80ak6aa92e.com`, TLD `xn--p1ai`) are
 * ASCII letters and digits.
 *
 * A host without a dot (`alice@localhost`, `root@mailhost`) is an address
 * too, but `name@word` is also how package versions and image digests are
 * written (`react@latest`, `image@sha256:…`), so a dotless host must start
 * with a letter, must not run on into a path, a port-less colon or another
 * label, and must not be a release tag or a digest algorithm.
 */

const LOCAL = '[\\p{L}\\p{N}\\p{M}._%+-]{1,64}';
const LABEL = '[\\p{L}\\p{N}\\p{M}-]{1,63}';
const DOTTED = `${LABEL}(?:\\.${LABEL}){1,8}(?![\\p{L}\\p{N}\\p{M}_-])`;
const DOTLESS = `\\p{L}[\\p{L}\\p{N}\\p{M}-]{0,62}(?![\\p{L}\\p{N}\\p{M}_@/-]|\\.[\\p{L}\\p{N}]|:[^\\d\\s])`;

export const EMAIL_PATTERN = new RegExp(`${LOCAL}@(?:${DOTTED}|${DOTLESS})`, 'gu');

/** A top-level domain: letters (an IDN TLD in its own script too) or its punycode form. */
const TLD = /^(?:\p{L}[\p{L}\p{M}]{1,62}|xn--[a-z0-9-]{2,59})$/iu;

/** Dotless hosts that are not hosts: npm/container release tags, digest algorithms, git refs. */
const NOT_A_HOST = new RegExp(
  String.raw`^(?:latest|next|beta|alpha|canary|rc|nightly|stable|experimental|insiders|lts|legacy|edge|dev|main|` +
    String.raw`master|head|sha\d*|md5|blake\d*)$`,
  'i',
);

/** The match's length when it is an address, 0 when it is a version, a digest or a tag. */
export function acceptEmail(match: string): number {
  const at = match.lastIndexOf('@');
  if (!hasAsciiAlphanumeric(match, 0, at) && !/[\p{L}\p{N}]/u.test(match.slice(0, at))) return 0;
  const dot = match.lastIndexOf('.');
  if (dot < at) return NOT_A_HOST.test(match.slice(at + 1)) ? 0 : match.length;
  return isAsciiTld(match, dot + 1) || TLD.test(match.slice(dot + 1)) ? match.length : 0;
}

/**
 * Whether `text` has an ASCII letter or digit between `from` and `to`: most local parts do, without a Unicode search.
 */
function hasAsciiAlphanumeric(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const code = text.charCodeAt(i) | 0x20;
    if ((code >= 0x61 && code <= 0x7a) || (code >= 0x30 && code <= 0x39 && code === text.charCodeAt(i))) return true;
  }
  return false;
}

/**
 * Whether the text from `from` on is 2–63 ASCII letters, a TLD
 * as most are written (the `TLD` pattern decides the rest).
 */
function isAsciiTld(text: string, from: number): boolean {
  const length = text.length - from;
  if (length < 2 || length > 63) return false;
  for (let i = from; i < text.length; i++) {
    const code = text.charCodeAt(i) | 0x20;
    if (code < 0x61 || code > 0x7a) return false;
  }
  return true;
}
