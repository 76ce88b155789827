/**
 * The assertion ids (`jti`) already accepted, each kept until its assertion
 * expires: a second request with the same one is a replay. Bounded, since
 * only assertions that passed every other check are remembered, by count:
 * at the limit the oldest is forgotten first (it is also the nearest to
 * expiring, all assertions living about as long).
 */
export class ReplayCache {
  readonly #maxEntries: number;
  /** jti → expiry (Unix seconds), in the order accepted. */
  readonly #seen = new Map<string, number>();

  constructor(maxEntries: number) {
    this.#maxEntries = maxEntries;
  }

  get size(): number {
    return this.#seen.size;
  }

  /** Records `jti` until `expiresAt` (Unix seconds); false when it is already there and still live. */
  firstUse(jti: string, expiresAt: number, nowSeconds: number): boolean {
    this.#forgetExpired(nowSeconds);
    const known = this.#seen.get(jti);
    if (known !== undefined && known >= nowSeconds) return false;
    this.#seen.set(jti, expiresAt);
    while (this.#seen.size > this.#maxEntries) this.#seen.delete(this.#seen.keys().next().value!);
    return true;
  }

  /** From the front only: entries come in about the order they expire, so this is O(1) per call. */
  #forgetExpired(nowSeconds: number): void {
    for (const [jti, expiresAt] of this.#seen) {
      if (expiresAt >= nowSeconds) return;
      this.#seen.delete(jti);
    }
  }
}
