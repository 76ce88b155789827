import { ConfigError } from './errors.js';

/** The gateway's shared secret: its own tokens' HS256 key, and the seed of its assertion keys. */
export const MIN_SIGNING_KEY_BYTES = 32;

/**
 * The signing key as bytes (a string counts its UTF-8 bytes). Shorter than
 * `MIN_SIGNING_KEY_BYTES`: a ConfigError at `signingKey`.
 */
export function checkSigningKey(key: string | Uint8Array): Uint8Array {
  const bytes = typeof key === 'string' ? new TextEncoder().encode(key) : key;
  if (bytes.byteLength < MIN_SIGNING_KEY_BYTES) {
    throw new ConfigError([
      {
        path: 'signingKey',
        message: `must be at least ${MIN_SIGNING_KEY_BYTES} bytes (e.g. openssl rand -hex ${MIN_SIGNING_KEY_BYTES})`,
      },
    ]);
  }
  return bytes;
}
