import { randomFillSync } from 'node:crypto';

/**
 * Cryptographically random bytes handed out from a pool refilled in one
 * call, as Node's own randomUUID does: asking the CSPRNG for 16 bytes at a
 * time costs a synchronous OpenSSL call (and a getpid) each, several
 * microseconds on every request; 4 KB at once costs about the same as one.
 * The bytes are the same CSPRNG's, and each is handed out once.
 */
export class RandomPool {
  readonly #pool: Buffer;
  #offset: number;

  constructor(bytes = 4096) {
    this.#pool = Buffer.allocUnsafe(bytes);
    this.#offset = bytes;
  }

  /** `length` fresh random bytes, as base64url. */
  base64url(length: number): string {
    if (length > this.#pool.length)
      throw new RangeError(`at most ${this.#pool.length} bytes at a time, asked for ${length}`);
    if (this.#offset + length > this.#pool.length) {
      randomFillSync(this.#pool);
      this.#offset = 0;
    }
    const start = this.#offset;
    this.#offset += length;
    return this.#pool.toString('base64url', start, this.#offset);
  }
}
