import { createHash, createHmac, createSecretKey, type KeyObject } from 'node:crypto';

/**
 * Node imports a raw Buffer or string key afresh on every `createHmac`
 * (about 13 µs, more than the hash itself); a KeyObject is imported once.
 * Keys are long-lived configuration, so each is converted once and kept for
 * as long as the caller keeps it.
 */
const imported = new WeakMap<Buffer, KeyObject>();
const importedStrings = new Map<string, KeyObject>();
const MAX_STRING_KEYS = 16;

function secretKey(key: string | Buffer): KeyObject {
  if (typeof key === 'string') return importedString(key);
  let found = imported.get(key);
  if (found === undefined) imported.set(key, (found = createSecretKey(key)));
  return found;
}

function importedString(key: string): KeyObject {
  let found = importedStrings.get(key);
  if (found !== undefined) return found;
  // String keys come from configuration and tests: a handful at most, so a tiny bounded map.
  if (importedStrings.size >= MAX_STRING_KEYS) importedStrings.clear();
  importedStrings.set(key, (found = createSecretKey(Buffer.from(key, 'utf8'))));
  return found;
}

/** SHA-256 of `text` in hex, or HMAC-SHA-256 when a `key` is given. */
export function sha256Hex(text: string, key?: string | Buffer): string {
  const hash = key === undefined ? createHash('sha256') : createHmac('sha256', secretKey(key));
  return hash.update(text).digest('hex');
}
