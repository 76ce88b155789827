import type { SingleUseMarks } from '../ports.js';

/** Redeemed keys in this process, each until its time to live passes (swept as keys are redeemed). */
export class MemorySingleUseMarks implements SingleUseMarks {
  readonly #expiries = new Map<string, number>();

  constructor(private readonly clock: () => number) {}

  async redeem(key: string, ttlMs: number): Promise<boolean> {
    const now = this.clock();
    this.#sweep(now);
    const expiresAt = this.#expiries.get(key);
    if (expiresAt !== undefined && expiresAt > now) return false;
    this.#expiries.set(key, now + ttlMs);
    return true;
  }

  /** Drops lapsed keys, oldest first (a Map keeps insertion order, and every key gets the same kind of short TTL). */
  #sweep(now: number): void {
    for (const [key, expiresAt] of this.#expiries) {
      if (expiresAt > now) return;
      this.#expiries.delete(key);
    }
  }
}
