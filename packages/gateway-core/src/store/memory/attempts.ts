import type { AttemptCounter, AttemptRecord } from '../ports.js';

export class MemoryAttemptCounter implements AttemptCounter {
  readonly #records = new Map<string, AttemptRecord & { expiresAt: number }>();

  constructor(private readonly clock: () => number) {}

  async recordFailure(subject: string, now: number, ttlMs: number): Promise<AttemptRecord> {
    const failures = (this.#live(subject)?.failures ?? 0) + 1;
    this.#records.set(subject, { failures, lastFailureAt: now, expiresAt: this.clock() + ttlMs });
    return { failures, lastFailureAt: now };
  }

  async read(subject: string): Promise<AttemptRecord | null> {
    const record = this.#live(subject);
    return record ? { failures: record.failures, lastFailureAt: record.lastFailureAt } : null;
  }

  async clear(subject: string): Promise<void> {
    this.#records.delete(subject);
  }

  #live(subject: string) {
    const record = this.#records.get(subject);
    if (record && record.expiresAt <= this.clock()) {
      this.#records.delete(subject);
      return undefined;
    }
    return record;
  }
}
