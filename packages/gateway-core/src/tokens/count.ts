import type { GptEncoding } from 'gpt-tokenizer/GptEncoding';
import { loadO200k } from './o200k.js';
import { RecentCounts } from './recent-counts.js';

let o200k: GptEncoding | undefined;

/**
 * The o200k_base tables (~0.2 s and ~40 MB of RSS to load, built from the
 * package's rank file: see o200k.ts) load on first use rather than when this
 * module is imported: a process that imports the core but counts nothing, a
 * `Gw:Http:Workers` primary, never holds them.
 */
function tokenizer(): GptEncoding {
  return (o200k ??= loadO200k());
}

/**
 * Loads the tokenizer now, so the first call a process serves does
 * not wait for it (see McpService and the large-answer worker).
 */
export function loadTokenizer(): void {
  tokenizer();
}

const countO200k: GptEncoding['countTokens'] = (text, options) => tokenizer().countTokens(text, options);
const isWithinTokenLimit: GptEncoding['isWithinTokenLimit'] = (text, limit, options) =>
  tokenizer().isWithinTokenLimit(text, limit, options);

/**
 * Special-token strings such as `<|endoftext|>` are ordinary text when they
 * come from a downstream response: counted as their bytes, never rejected
 * (gpt-tokenizer throws on them by default).
 */
const AS_PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/**
 * The longest slice the tokenizer is handed. BPE work grows with the square
 * of a pre-tokenized piece's length, and a run with no break in it (30 KB of
 * `{},{},…` is one piece) took over a second: a downstream could stall the
 * event loop with a small answer. Slices are cut before a space that ends a
 * word, where the pre-tokenizer cuts anyway, so natural text counts exactly;
 * only a run longer than this with no space is cut inside, which can add a
 * token at each cut (BPE cannot merge across it).
 */
const MAX_SLICE_CHARS = 256;

/**
 * Answers are counted once each: the same answer again (the same record
 * asked for twice, a cached answer served) is charged from this.
 */
const recent = new RecentCounts();

/** Tokens of `text` under o200k_base, the encoding agents are billed in. */
export function countTokens(text: string): number {
  if (!recent.keeps(text)) return countUncached(text);
  const known = recent.get(text);
  if (known !== undefined) return known;
  const count = countUncached(text);
  recent.set(text, count);
  return count;
}

function countUncached(text: string): number {
  if (text.length <= MAX_SLICE_CHARS) return countO200k(text, AS_PLAIN_TEXT);
  let total = 0;
  for (const slice of slices(text)) total += countO200k(slice, AS_PLAIN_TEXT);
  return total;
}

/** `text` in pieces of at most MAX_SLICE_CHARS, cut before a space that follows a non-space where there is one. */
function* slices(text: string): Generator<string> {
  let start = 0;
  while (text.length - start > MAX_SLICE_CHARS) {
    let cut = start + MAX_SLICE_CHARS;
    while (cut > start + 1 && !(text[cut] === ' ' && !/\s/.test(text.charAt(cut - 1)))) cut--;
    if (cut <= start + 1) cut = splitSafe(text, start + MAX_SLICE_CHARS);
    yield text.slice(start, cut);
    start = cut;
  }
  yield text.slice(start);
}

/** Never between the two halves of a surrogate pair. */
function splitSafe(text: string, at: number): number {
  const code = text.charCodeAt(at);
  return code >= 0xdc00 && code <= 0xdfff ? at + 1 : at;
}

/**
 * The token count of `text` when it is at most `limit`, else undefined.
 * Stops tokenizing as soon as the limit is passed, so checking a huge text
 * against a small cap costs about `limit` tokens of work, not the whole text.
 *
 * Fast path: o200k_base is a byte-level BPE, so every token stands for at
 * least one UTF-8 byte and a text never has more tokens than bytes (lone
 * surrogates become the 3-byte U+FFFD on both sides). A text whose byte
 * length is within the limit therefore fits without asking the tokenizer
 * whether it does.
 */
export function tokensWithin(text: string, limit: number): number | undefined {
  if (Buffer.byteLength(text, 'utf8') <= limit) return countTokens(text);
  const known = recent.keeps(text) ? recent.get(text) : undefined;
  if (known !== undefined) return known <= limit ? known : undefined;
  if (text.length <= MAX_SLICE_CHARS) {
    const count = isWithinTokenLimit(text, limit, AS_PLAIN_TEXT);
    return count === false ? undefined : count;
  }
  let total = 0;
  for (const slice of slices(text)) {
    total += countO200k(slice, AS_PLAIN_TEXT);
    if (total > limit) return undefined;
  }
  // Counted to the end: the whole count, as countTokens gives it.
  recent.set(text, total);
  return total;
}
