import { countTokens as countO200k, isWithinTokenLimit } from 'gpt-tokenizer/encoding/o200k_base';

/**
 * Special-token strings such as `<|endoftext|>` are ordinary text when they
 * come from a downstream response: counted as their bytes, never rejected
 * (gpt-tokenizer throws on them by default).
 */
const AS_PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/** Tokens of `text` under o200k_base, the encoding agents are billed in. */
export function countTokens(text: string): number {
  return countO200k(text, AS_PLAIN_TEXT);
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
  const count = isWithinTokenLimit(text, limit, AS_PLAIN_TEXT);
  return count === false ? undefined : count;
}
