import type { JsonRpcId } from '../protocol/jsonrpc.js';
import { RandomPool } from '../util/random-pool.js';

/**
 * The SSE event ids of a resumable tools/call stream: `<stream>:<n>`, the
 * stream being 22 random characters and the request's JSON-RPC id, so a
 * resume can answer that request even when its answer is gone. Event 0 is
 * the priming event, event 1 the answer. Nothing is stored to hand one out.
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

const EVENT_ID = /^([A-Za-z0-9_-]{22}\.([A-Za-z0-9_-]{1,200})):([01])$/;

/** One stream id per tools/call: its random part comes from a pool, not a CSPRNG call each. */
const random = new RandomPool();

export function newStreamId(requestId: JsonRpcId): string {
  return `${random.base64url(16)}.${Buffer.from(JSON.stringify(requestId)).toString('base64url')}`;
}

export function eventId(streamId: string, event: number): string {
  return `${streamId}:${event}`;
}

/** The position a `Last-Event-ID` names, or null when it is not one of ours. */
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
