import { randomUUID, sign, type KeyObject } from 'node:crypto';
import { derToJoseSignature } from './ecdsa-signature.js';
import { derivePeriodKey, type AssertionAlgorithm, type AssertionPublicJwk, type PeriodKey } from './derive-key.js';
import { jwksMaxAgeSeconds, periodAt, publishedPeriods } from './key-schedule.js';
import { resolveAssertionOptions, type GatewayAssertionOptions, type ResolvedAssertionOptions } from './options.js';

// The header and the key set's path are the wire contract's, shared with host-kit's requireGateway.
export { ASSERTION_HEADER, JWKS_PATH } from '@tollgate/contract';

/** What one forwarded attempt asserts. */
export interface AssertionSubject {
  /** `aud`: the downstream the call goes to. */
  audience: string;
  /** `sub`. */
  agentId: string;
  /** `tool`: the name the downstream declared. */
  tool: string;
  /** `scope`, space-separated: the scopes granted to this call. */
  scopes: readonly string[];
  /** `call_id`: the same on every attempt of one call. */
  callId: string;
}

export interface JsonWebKeySet {
  keys: AssertionPublicJwk[];
}

/** A period's key with the encoded JOSE header that names it, both made once. */
interface SigningKey extends PeriodKey {
  encodedHeader: string;
}

/**
 * Signs the short-lived assertions the gateway adds to each forwarded
 * attempt, and publishes the keys to check them (see key-schedule.ts).
 *
 * The compact JWS is assembled here and signed with node:crypto's one-shot
 * `sign`: a few microseconds of JSON and base64 around the signature, where
 * jose's SignJWT goes through WebCrypto's asynchronous job queue and costs
 * two to three times the CPU per call (docs/reference/behaviour.md). Verifiers use
 * jose; the tests check that it accepts what is signed here.
 */
export class GatewayAssertionSigner {
  readonly algorithm: AssertionAlgorithm;
  readonly issuer: string;
  readonly lifetimeSeconds: number;
  /** For the JWKS answer's Cache-Control. */
  readonly jwksMaxAgeSeconds: number;
  readonly #options: ResolvedAssertionOptions;
  readonly #keys = new Map<number, SigningKey>();
  #current: SigningKey | undefined;
  #published: { first: number; last: number; set: JsonWebKeySet } | undefined;

  constructor(options: GatewayAssertionOptions) {
    this.#options = resolveAssertionOptions(options);
    this.algorithm = this.#options.algorithm;
    this.issuer = this.#options.issuer;
    this.lifetimeSeconds = this.#options.lifetimeSeconds;
    this.jwksMaxAgeSeconds = jwksMaxAgeSeconds(this.#options.periodMs);
  }

  /** A compact JWT for one attempt; a fresh `jti` each time. Synchronous: no I/O, one signature. */
  sign(subject: AssertionSubject): string {
    const nowMs = this.#options.clock().getTime();
    const key = this.#keyAt(nowMs);
    const issuedAt = Math.floor(nowMs / 1000);
    const payload = JSON.stringify({
      iss: this.issuer,
      aud: subject.audience,
      sub: subject.agentId,
      tool: subject.tool,
      scope: subject.scopes.join(' '),
      call_id: subject.callId,
      jti: randomUUID(),
      iat: issuedAt,
      exp: issuedAt + this.lifetimeSeconds,
    });
    const input = `${key.encodedHeader}.${Buffer.from(payload).toString('base64url')}`;
    return `${input}.${signature(key.algorithm, key.privateKey, input).toString('base64url')}`;
  }

  /** The public keys to publish now: previous ones still needed, the current one and the next. */
  jwks(): JsonWebKeySet {
    const nowMs = this.#options.clock().getTime();
    const { first, last } = publishedPeriods(nowMs, this.#options.periodMs, this.lifetimeSeconds * 1000);
    if (this.#published?.first === first && this.#published.last === last) return this.#published.set;
    this.#prune(first);
    const keys: AssertionPublicJwk[] = [];
    for (let period = first; period <= last; period++) keys.push(this.#key(period).publicJwk);
    this.#published = { first, last, set: { keys } };
    return this.#published.set;
  }

  /** The current period's key; derived and imported once per period, not per call. */
  #keyAt(nowMs: number): SigningKey {
    const period = periodAt(nowMs, this.#options.periodMs);
    if (this.#current?.period === period) return this.#current;
    this.#prune(publishedPeriods(nowMs, this.#options.periodMs, this.lifetimeSeconds * 1000).first);
    this.#current = this.#key(period);
    return this.#current;
  }

  #key(period: number): SigningKey {
    let key = this.#keys.get(period);
    if (key === undefined) {
      const derived = derivePeriodKey(this.#options.secret, this.algorithm, period);
      const header = JSON.stringify({ alg: derived.algorithm, kid: derived.kid, typ: 'JWT' });
      key = { ...derived, encodedHeader: Buffer.from(header).toString('base64url') };
      this.#keys.set(period, key);
    }
    return key;
  }

  /** Forgets keys no longer published, so a long-running gateway holds a handful. */
  #prune(first: number): void {
    for (const period of this.#keys.keys()) if (period < first) this.#keys.delete(period);
  }
}

/** P-256's integers r and s are 32 bytes each in a JWS signature. */
const P256_INTEGER_BYTES = 32;

/**
 * JWS signatures: Ed25519 as is; ECDSA as r ‖ s (RFC 7518 3.4), converted
 * from DER here (see ecdsa-signature.ts). The key is passed bare: wrapped in
 * an options object Node takes a slower path (P-256: 36 µs against 23 µs).
 */
function signature(algorithm: AssertionAlgorithm, key: KeyObject, input: string): Buffer {
  const data = Buffer.from(input);
  return algorithm === 'EdDSA'
    ? sign(null, data, key)
    : derToJoseSignature(sign('sha256', data, key), P256_INTEGER_BYTES);
}
