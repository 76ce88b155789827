import { tokensWithin } from './count.js';
import { pruneToFit, type KeyLists, type TruncationCut } from './prune.js';

/**
 * Describes a shortened response. The agent sees it first, as the first key
 * of the envelope `{"_truncated": <marker>, "data": <what was kept>}`.
 */
export interface TruncationMarker {
  reason: 'maxResponseTokens';
  maxTokens: number;
  /** UTF-8 bytes of the full response; exact and cheap, unlike its token count. */
  originalBytes: number;
  /** Where data was left out, outermost first (at most MAX_LISTED_CUTS). */
  cuts: TruncationCut[];
  /** How many further cuts were not listed. */
  moreCuts?: number;
}

export interface CappedResponse {
  /** Valid JSON, at most `maxTokens` tokens. */
  text: string;
  /** Tokens of `text` (o200k_base): what the agent is charged. */
  tokens: number;
  truncated: boolean;
}

const MAX_LISTED_CUTS = 8;

/** What is left when not even the marker fits: smaller caps get `null`. */
const BARE_MARKER = '{"_truncated":true}';

/**
 * Serializes `value` as JSON text of at most `maxTokens` tokens.
 *
 * A response within the cap is returned as is. A longer one becomes the
 * envelope described by TruncationMarker, holding the longest document-order
 * prefix of the value that still fits. The search runs over the character
 * budget given to the pruner: it doubles from a small start until a budget no
 * longer fits, then bisects, so the number of tokenizer runs grows with the
 * logarithm of the response size, and each run stops once it passes the cap.
 *
 * Caps too small for the envelope yield `{"_truncated":true}` (7 tokens), and
 * below that `null` (1 token): still valid JSON, still within the cap, which
 * matters because the cap can be the few tokens left in an agent's budget.
 *
 * `serialized`, when the caller already holds `JSON.stringify(value)`, saves
 * serializing a large value a second time.
 */
export function capResponse(value: unknown, maxTokens: number, serialized?: string): CappedResponse {
  return capJson(serialized ?? JSON.stringify(value) ?? 'null', maxTokens, () => value);
}

/**
 * `capResponse` for an answer held as its JSON text (`full`, what
 * `JSON.stringify` gave): its value is asked of `valueOf` only when the
 * text has to be cut, so an answer that fits is never parsed.
 */
export function capJson(full: string, maxTokens: number, valueOf: () => unknown): CappedResponse {
  checkCap(maxTokens);
  const tokens = tokensWithin(full, maxTokens);
  if (tokens !== undefined) return { text: full, tokens, truncated: false };
  const value = valueOf();

  const keyLists: KeyLists = new WeakMap();
  const originalBytes = Buffer.byteLength(full, 'utf8');
  const envelope = (room: number) => buildEnvelope(value, room, maxTokens, originalBytes, keyLists);
  const fitting = (room: number): CappedResponse | undefined => {
    const text = envelope(room);
    const count = tokensWithin(text, maxTokens);
    return count === undefined ? undefined : { text, tokens: count, truncated: true };
  };

  let best = fitting(0);
  if (best === undefined) return smallestMarker(maxTokens);

  // Invariant: a budget of `low` fits, a budget of `high` does not.
  let low = 0;
  let high = full.length;
  for (let room = Math.max(64, maxTokens); room < high; room *= 2) {
    const result = fitting(room);
    if (result === undefined) {
      high = room;
      break;
    }
    best = result;
    low = room;
  }
  while (high - low > 1) {
    const middle = low + Math.floor((high - low) / 2);
    const result = fitting(middle);
    if (result === undefined) high = middle;
    else {
      best = result;
      low = middle;
    }
  }
  return best;
}

function buildEnvelope(
  value: unknown,
  room: number,
  maxTokens: number,
  originalBytes: number,
  keyLists: KeyLists,
): string {
  const cuts: TruncationCut[] = [];
  const pruned = pruneToFit(value, room, cuts, keyLists);
  const marker: TruncationMarker = {
    reason: 'maxResponseTokens',
    maxTokens,
    originalBytes,
    cuts: cuts.slice(0, MAX_LISTED_CUTS),
  };
  if (cuts.length > MAX_LISTED_CUTS) marker.moreCuts = cuts.length - MAX_LISTED_CUTS;
  const data = pruned === undefined ? '' : `,"data":${JSON.stringify(pruned.value)}`;
  return `{"_truncated":${JSON.stringify(marker)}${data}}`;
}

function smallestMarker(maxTokens: number): CappedResponse {
  const tokens = tokensWithin(BARE_MARKER, maxTokens);
  if (tokens !== undefined) return { text: BARE_MARKER, tokens, truncated: true };
  return { text: 'null', tokens: 1, truncated: true };
}

function checkCap(maxTokens: number): void {
  if (!Number.isInteger(maxTokens) || maxTokens < 1) {
    throw new RangeError(`maxTokens must be a positive integer, got ${maxTokens}`);
  }
}
