import { hash } from 'node:crypto';

/**
 * Remembers tokens whose signature and claims already checked out, so a
 * busy agent's every call does not pay for an HMAC verification through
 * WebCrypto (the largest single cost of an authenticated request). Keyed by
 * the token's SHA-256, so no bearer token sits in memory. A hit is only
 * good until the token's own `exp`; revocation is unaffected because the
 * agent and its revocation generation are read from the store on every call.
 */
export class VerifiedTokenCache<T extends { exp: number }> {
  readonly #entries = new Map<string, T>();

  constructor(private readonly maxEntries = 10_000) {}

  get(token: string, nowMs: number): T | undefined {
    const key = keyOf(token);
    const payload = this.#entries.get(key);
    if (payload === undefined) return undefined;
    if (payload.exp * 1000 <= nowMs) {
      this.#entries.delete(key);
      return undefined;
    }
    return payload;
  }

  set(token: string, payload: T): void {
    const key = keyOf(token);
    this.#entries.delete(key);
    this.#entries.set(key, payload);
    // Map iteration order is insertion order: the first key is the oldest.
    if (this.#entries.size > this.maxEntries) this.#entries.delete(this.#entries.keys().next().value!);
  }
}

function keyOf(token: string): string {
  return hash('sha256', token, 'base64');
}
