import { createHash, createHmac, createSecretKey, type KeyObject } from 'node:crypto';

/**
 * Node imports a raw Buffer or string key afresh on every `createHmac`
 * (about 13 µs, more than the hash itself); a KeyObject is imported once.
 * Keys are long-lived configuration, so each is converted once and kept for
 * as long as the caller keeps it.
 */
const imported = new WeakMap<Buffer, Keyed>();
const importedStrings = new Map<string, Keyed>();
const MAX_STRING_KEYS = 16;

/** A key, and the digests it gave lately (see `rememberedSha256Hex`). */
interface Keyed {
  object: KeyObject;
  recent: Map<string, string>;
}
const MAX_REMEMBERED = 1024;
const MAX_REMEMBERED_CHARS = 256;

function secretKey(key: string | Buffer): Keyed {
  if (typeof key === 'string') return importedString(key);
  let found = imported.get(key);
  if (found === undefined) imported.set(key, (found = { object: createSecretKey(key), recent: new Map() }));
  return found;
}

function importedString(key: string): Keyed {
  let found = importedStrings.get(key);
  if (found !== undefined) return found;
  // String keys come from configuration and tests: a handful at most, so a tiny bounded map.
  if (importedStrings.size >= MAX_STRING_KEYS) importedStrings.clear();
  importedStrings.set(key, (found = { object: createSecretKey(Buffer.from(key, 'utf8')), recent: new Map() }));
  return found;
}

function hmacHex(text: string, key: Keyed): string {
  return createHmac('sha256', key.object).update(text).digest('hex');
}

/** SHA-256 of `text` in hex, or HMAC-SHA-256 when a `key` is given. */
export function sha256Hex(text: string, key?: string | Buffer): string {
  return key === undefined ? createHash('sha256').update(text).digest('hex') : hmacHex(text, secretKey(key));
}

/**
 * `sha256Hex(text, key)`, remembering the keyed digests of short texts: for
 * texts that come back, as a cached call's arguments do by definition (its
 * key is digested by the lookup, again when a miss is stored, and on every
 * hit). A text seen lately costs a string hash (~0.2 µs) instead of an HMAC
 * (~2 µs: a stream object and an HMAC context each time); a new one costs
 * ~1 µs more than the HMAC alone, so texts that rarely repeat (the audit's
 * digest of every call's arguments) do not come here. Bounded: texts up to
 * MAX_REMEMBERED_CHARS, at most MAX_REMEMBERED digests per key, oldest first out.
 */
export function rememberedSha256Hex(text: string, key?: string | Buffer): string {
  if (key === undefined || text.length > MAX_REMEMBERED_CHARS) return sha256Hex(text, key);
  const keyed = secretKey(key);
  let digest = keyed.recent.get(text);
  if (digest !== undefined) return digest;
  digest = hmacHex(text, keyed);
  if (keyed.recent.size >= MAX_REMEMBERED) keyed.recent.delete(keyed.recent.keys().next().value!);
  keyed.recent.set(text, digest);
  return digest;
}
