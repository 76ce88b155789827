import { createHmac, randomBytes } from 'node:crypto';
import { sameSecret } from '../crypto/same-secret.js';
import { sha256Hex } from '../crypto/sha256.js';
import { InvalidRequestStateError } from '../errors.js';
import { canonicalJson } from '../util/canonical-json.js';

/**
 * The `requestState` of a write confirmation (MCP 2026-07-28 MRTR): what the
 * gateway asked the user to confirm, carried by the client from the
 * InputRequiredResult to its retry. The client may not change it, and MRTR
 * says to treat it as attacker-controlled: it is HMAC-SHA-256 signed with a
 * key every instance derives from the signing key, and binds the agent, the
 * tool and the exact arguments (a keyed digest of their canonical JSON), an
 * expiry, and a nonce that the store lets be redeemed once.
 *
 * Form: `v1.<base64url(JSON payload)>.<base64url(HMAC of "v1.<payload>")>`.
 */

const VERSION = 'v1';
/** A state longer than this was never issued here: refused before any decoding or hashing. */
const MAX_STATE_CHARS = 1_024;

/** What a confirmation is about: the retry must be this very call. */
export interface ConfirmedCall {
  agentId: string;
  tool: string;
  args: unknown;
}

/** A state that checked out: its nonce (to redeem once) and when it lapses. */
export interface VerifiedState {
  nonce: string;
  expiresAt: number;
}

interface Payload {
  /** Agent id. */
  a: string;
  /** Tool name. */
  t: string;
  /** Keyed digest of the arguments' canonical JSON. */
  h: string;
  /** Expiry, epoch milliseconds. */
  e: number;
  /** 128 random bits. */
  n: string;
}

export class RequestStates {
  readonly #key: Buffer;
  readonly #ttlMs: number;
  readonly #clock: () => number;

  constructor(key: Uint8Array, ttlMs: number, clock: () => number = Date.now) {
    if (key.byteLength < 32) throw new RangeError('the request-state key must be at least 32 bytes');
    this.#key = Buffer.from(key);
    this.#ttlMs = ttlMs;
    this.#clock = clock;
  }

  issue(call: ConfirmedCall): string {
    const payload: Payload = {
      a: call.agentId,
      t: call.tool,
      h: this.#digest(call.args),
      e: this.#clock() + this.#ttlMs,
      n: randomBytes(16).toString('base64url'),
    };
    const body = `${VERSION}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
    return `${body}.${this.#sign(body)}`;
  }

  /**
   * The state's nonce and expiry when it was issued here for exactly this call and has not lapsed;
   * InvalidRequestStateError otherwise.
   */
  verify(state: unknown, call: ConfirmedCall): VerifiedState {
    const payload = this.#authentic(state);
    if (payload.e <= this.#clock())
      throw new InvalidRequestStateError('requestState has expired: call the tool again to be asked anew');
    if (payload.a !== call.agentId) throw new InvalidRequestStateError('requestState was issued to another agent');
    if (payload.t !== call.tool)
      throw new InvalidRequestStateError(`requestState was issued for another tool than ${call.tool}`);
    // Compared in constant time like the signature: the digest is keyed, but nothing is learnt from timing either way.
    if (!sameSecret(payload.h, this.#digest(call.args)))
      throw new InvalidRequestStateError(
        'requestState was issued for other arguments: the arguments confirmed must be sent unchanged',
      );
    return { nonce: payload.n, expiresAt: payload.e };
  }

  /** The payload of a state this gateway signed; forged, altered or malformed: refused alike, saying no more. */
  #authentic(state: unknown): Payload {
    const forged = () => new InvalidRequestStateError('requestState is not one this gateway issued');
    if (typeof state !== 'string' || state.length > MAX_STATE_CHARS) throw forged();
    const cut = state.lastIndexOf('.');
    const body = state.slice(0, cut);
    if (cut < 0 || !body.startsWith(`${VERSION}.`) || !sameSecret(state.slice(cut + 1), this.#sign(body)))
      throw forged();
    const payload = parsePayload(body.slice(VERSION.length + 1));
    if (payload === null) throw forged();
    return payload;
  }

  #sign(body: string): string {
    return createHmac('sha256', this.#key).update(body).digest('base64url');
  }

  #digest(args: unknown): string {
    return sha256Hex(canonicalJson(args ?? {}), this.#key);
  }
}

function parsePayload(encoded: string): Payload | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'));
    const payload = value as Payload;
    const fields = typeof value === 'object' && value !== null;
    return fields &&
      typeof payload.a === 'string' &&
      typeof payload.t === 'string' &&
      typeof payload.h === 'string' &&
      typeof payload.n === 'string' &&
      Number.isFinite(payload.e)
      ? payload
      : null;
  } catch {
    return null;
  }
}
