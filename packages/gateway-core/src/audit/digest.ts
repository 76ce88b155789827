import { canonicalJson } from '../util/canonical-json.js';
import { rememberedSha256Hex, sha256Hex } from '../crypto/sha256.js';

/**
 * What the audit keeps of a call's arguments: SHA-256 (hex) of their
 * canonical JSON. Equal arguments give equal digests, so an operator can see
 * that two calls asked the same thing without the trail holding what they
 * asked. A plain hash of a low-entropy value (a 9-digit number) can be
 * guessed by trying them all; pass a secret `key` to get an HMAC-SHA-256
 * that cannot be, at the price of digests that only match under that key.
 * `likelyRepeated` changes the cost, never the digest (see `rememberedSha256Hex`).
 */
export function argsDigest(args: unknown, key?: string | Buffer, likelyRepeated = false): string {
  // Arguments likely to come back (a cached tool's: a hit repeats them) are looked up rather than digested again.
  return (likelyRepeated ? rememberedSha256Hex : sha256Hex)(canonicalJson(args), key);
}
