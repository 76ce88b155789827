import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Compares a presented API key with the configured one in constant time.
 * Both are hashed first so the comparison takes the same time whatever their
 * lengths: timingSafeEqual alone needs equal lengths, and an early length
 * check would leak the key's length.
 */
export function apiKeyMatches(presented: string, expected: string): boolean {
  return timingSafeEqual(sha256(presented), sha256(expected));
}

function sha256(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
