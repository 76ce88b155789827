/**
 * Token counts of texts counted lately, by the text itself: an answer seen
 * again (the same record asked for twice, a cache hit) is charged without
 * tokenizing it again. Exact by construction: the key is the whole text, so
 * a hit is the count of that very text. Looking a text up costs hashing it
 * once (about a microsecond per kilobyte), against tens of microseconds
 * per kilobyte to tokenize it.
 *
 * Bounded twice: by the characters its keys hold together (least recently
 * used texts go first) and by the length of one text. Longer texts are not
 * kept: V8 hashes a string longer than 16,383 characters by its length
 * alone, so such keys would all collide, and tokenizing them dwarfs a
 * lookup anyway.
 */
export class RecentCounts {
  readonly #counts = new Map<string, number>();
  readonly #maxChars: number;
  readonly #minTextChars: number;
  readonly #maxTextChars: number;
  #chars = 0;

  constructor({
    maxChars = 2_000_000,
    minTextChars = 64,
    maxTextChars = 16_383,
  }: { maxChars?: number; minTextChars?: number; maxTextChars?: number } = {}) {
    this.#maxChars = maxChars;
    this.#minTextChars = minTextChars;
    this.#maxTextChars = Math.min(maxTextChars, maxChars);
  }

  /** Whether a text of this length is kept at all (shorter ones count about as fast as they hash). */
  keeps(text: string): boolean {
    return text.length >= this.#minTextChars && text.length <= this.#maxTextChars;
  }

  /** The count of `text` when it was counted lately; it becomes the most recently used. */
  get(text: string): number | undefined {
    const count = this.#counts.get(text);
    if (count === undefined) return undefined;
    this.#counts.delete(text);
    this.#counts.set(text, count);
    return count;
  }

  set(text: string, count: number): void {
    if (!this.keeps(text) || this.#counts.has(text)) return;
    this.#counts.set(text, count);
    this.#chars += text.length;
    // A Map iterates in insertion order: the first key is the least recently used.
    for (const oldest of this.#counts.keys()) {
      if (this.#chars <= this.#maxChars) break;
      this.#counts.delete(oldest);
      this.#chars -= oldest.length;
    }
  }

  get size(): number {
    return this.#counts.size;
  }

  /** Characters held by the kept texts. */
  get chars(): number {
    return this.#chars;
  }
}
