import { hash } from 'node:crypto';
import { sameSecret } from '../crypto/same-secret.js';
import type { JsonRpcId } from '../protocol/jsonrpc.js';
import { RandomPool } from '../util/random-pool.js';

/**
 * The SSE event ids of a resumable tools/call stream: `<stream>:<n>`, the
 * stream being a random nonce, a tag that signs it for its session, and the
 * request's JSON-RPC id, so a resume can answer that request even when its
 * answer is gone. Event 0 is the priming event, event 1 the answer. Nothing
 * is stored to hand one out, and a made-up id, or another session's, is
 * told from a real one without a store read (see `StreamIds`).
 */
export interface StreamPosition {
  streamId: string;
  requestId: JsonRpcId;
  /** The last event the client received. */
  seen: number;
}

/** The priming event and the answer. */
export const PRIMING_EVENT = 0;
export const ANSWER_EVENT = 1;

/** 8 random bytes, and a tag of 22 base64url characters (132 bits). */
const NONCE_BYTES = 8;
const TAG_LENGTH = 22;
const STREAM_ID = /^([A-Za-z0-9_-]{11})([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{1,200})$/;
const EVENT_ID = /^([A-Za-z0-9_-]{33}\.([A-Za-z0-9_-]{1,200})):([01])$/;

/** One stream id per tools/call: its nonce comes from a pool, not a CSPRNG call each. */
const random = new RandomPool();

/**
 * Hands out stream ids signed for the session they belong to, and tells
 * whether an id a resume names is one of them. Every instance that shares
 * the key (derived from the signing key) accepts the others' ids.
 *
 * The tag is SHA-256 over the secret key and the id's parts, truncated to
 * 132 bits: a truncated digest cannot be extended (the state it would need
 * is not in it), so the secret prefix is a sound MAC here, and one
 * `crypto.hash` costs a fifth of an HMAC's object setup, paid on every
 * resumable tools/call.
 */
export class StreamIds {
  readonly #key: string;

  constructor(key: Uint8Array) {
    this.#key = Buffer.from(key).toString('base64url');
  }

  /** A new stream id for a request of this session. */
  issue(requestId: JsonRpcId, sessionId: string): string {
    const nonce = random.base64url(NONCE_BYTES);
    const request = Buffer.from(JSON.stringify(requestId)).toString('base64url');
    return `${nonce}${this.#tag(sessionId, nonce, request)}.${request}`;
  }

  /** Whether a gateway sharing the key opened this stream, in this session (compared in constant time). */
  belongsTo(streamId: string, sessionId: string): boolean {
    const match = STREAM_ID.exec(streamId);
    if (!match) return false;
    // Compared as text: base64url has several spellings of the same bytes, and each would be another store key.
    const expected = this.#tag(sessionId, match[1]!, match[3]!);
    return sameSecret(match[2]!, expected);
  }

  #tag(sessionId: string, nonce: string, request: string): string {
    // The key is fixed-length base64url and the session id has no NUL: the parts cannot shift into one another.
    return hash('sha256', `${this.#key}\0${sessionId}\0${nonce}.${request}`, 'base64url').slice(0, TAG_LENGTH);
  }
}

export function eventId(streamId: string, event: number): string {
  return `${streamId}:${event}`;
}

/**
 * The position a `Last-Event-ID` names, or null when it is not shaped as one of ours (whose it is, `StreamIds` says).
 */
export function parseEventId(value: string): StreamPosition | null {
  const match = EVENT_ID.exec(value.trim());
  if (!match) return null;
  try {
    const requestId: unknown = JSON.parse(Buffer.from(match[2]!, 'base64url').toString('utf8'));
    if (typeof requestId !== 'string' && !Number.isSafeInteger(requestId)) return null;
    return { streamId: match[1]!, requestId: requestId as JsonRpcId, seen: Number(match[3]) };
  } catch {
    return null;
  }
}
