import { createECDH, createHash, createPrivateKey, createPublicKey, hkdfSync, type KeyObject } from 'node:crypto';

import type { AssertionAlgorithm } from '@tollgate/contract';

/**
 * The signature algorithms of gateway assertions: Ed25519 or ECDSA on P-256 (the default); host-kit accepts only these.
 */
export { ASSERTION_ALGORITHMS, type AssertionAlgorithm } from '@tollgate/contract';

/** A public key as published in the JWKS. */
export interface AssertionPublicJwk {
  kty: 'OKP' | 'EC';
  crv: 'Ed25519' | 'P-256';
  x: string;
  y?: string;
  kid: string;
  alg: AssertionAlgorithm;
  use: 'sig';
}

/** One rotation period's key pair, imported once. */
export interface PeriodKey {
  period: number;
  kid: string;
  algorithm: AssertionAlgorithm;
  privateKey: KeyObject;
  publicJwk: AssertionPublicJwk;
}

/** PKCS #8 DER of an Ed25519 private key, up to the 32-byte seed (RFC 8410). */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** The order of P-256's base point: a private scalar is in [1, n − 1]. */
const P256_ORDER = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;

/**
 * The key pair of one rotation period, derived from the gateway's shared
 * secret alone: every instance computes the same keys for the same period
 * without talking to the others. HKDF-SHA256 with the algorithm and the
 * period in `info`, so each period (and each algorithm) gets an unrelated key,
 * and the assertion keys reveal nothing about the secret or about each other.
 */
export function derivePeriodKey(secret: Uint8Array, algorithm: AssertionAlgorithm, period: number): PeriodKey {
  const info = `tollgate gateway assertion ${algorithm} ${period}`;
  const privateKey = algorithm === 'EdDSA' ? ed25519Key(secret, info) : p256Key(secret, info);
  const publicJwk = publicJwkOf(privateKey);
  const kid = thumbprint(publicJwk);
  return { period, kid, algorithm, privateKey, publicJwk: { ...publicJwk, kid, alg: algorithm, use: 'sig' } };
}

function ed25519Key(secret: Uint8Array, info: string): KeyObject {
  const seed = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), info, 32));
  return createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
}

/**
 * 48 bytes reduced modulo n − 1, plus one: a scalar in range whose bias
 * (2^-128) is negligible (FIPS 186-5 A.2.1's method).
 */
function p256Key(secret: Uint8Array, info: string): KeyObject {
  const wide = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), info, 48));
  const scalar = (BigInt(`0x${wide.toString('hex')}`) % (P256_ORDER - 1n)) + 1n;
  const d = Buffer.from(scalar.toString(16).padStart(64, '0'), 'hex');
  const ecdh = createECDH('prime256v1');
  ecdh.setPrivateKey(d);
  const point = ecdh.getPublicKey(); // 0x04 ‖ x ‖ y
  return createPrivateKey({
    key: {
      kty: 'EC',
      crv: 'P-256',
      d: d.toString('base64url'),
      x: point.subarray(1, 33).toString('base64url'),
      y: point.subarray(33, 65).toString('base64url'),
    },
    format: 'jwk',
  });
}

function publicJwkOf(privateKey: KeyObject): Pick<AssertionPublicJwk, 'kty' | 'crv' | 'x' | 'y'> {
  const jwk = createPublicKey(privateKey).export({ format: 'jwk' });
  if (jwk.kty === 'OKP') return { kty: 'OKP', crv: 'Ed25519', x: jwk.x! };
  return { kty: 'EC', crv: 'P-256', x: jwk.x!, y: jwk.y! };
}

/** RFC 7638 JWK thumbprint (SHA-256): the kid names the public key itself. */
function thumbprint(jwk: Pick<AssertionPublicJwk, 'kty' | 'crv' | 'x' | 'y'>): string {
  const members =
    jwk.kty === 'OKP' ? { crv: jwk.crv, kty: jwk.kty, x: jwk.x } : { crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y };
  return createHash('sha256').update(JSON.stringify(members)).digest('base64url');
}
