import { hash, timingSafeEqual } from 'node:crypto';

/**
 * Whether a presented secret (an API key, a signature, a CSRF token, a tag)
 * is the expected one, in time that tells neither where they differ nor how
 * long the expected one is. Both are hashed first: `timingSafeEqual` alone
 * needs equal lengths, and an early length check would leak the secret's.
 * Hashed as UTF-16 code units, so two strings match exactly when they are
 * `===` (UTF-8 would turn every lone surrogate into the same U+FFFD).
 */
export function sameSecret(presented: string, expected: string): boolean {
  return timingSafeEqual(digest(presented), digest(expected));
}

function digest(text: string): Buffer {
  return hash('sha256', Buffer.from(text, 'utf16le'), 'buffer');
}
