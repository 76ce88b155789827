import type { StreamAnswer, StreamStore } from '../ports.js';

interface Entry {
  answer: StreamAnswer;
  expiresAt: number;
}

/** Kept answers in this process; expired ones are dropped as they are met and on each write. */
export class MemoryStreamStore implements StreamStore {
  readonly #answers = new Map<string, Entry>();
  readonly #clock: () => number;

  constructor(clock: () => number) {
    this.#clock = clock;
  }

  async keep(streamId: string, answer: StreamAnswer, ttlMs: number): Promise<void> {
    const now = this.#clock();
    // Only lost streams are kept, so the map stays small: a sweep per write is cheap.
    for (const [id, entry] of this.#answers) if (entry.expiresAt <= now) this.#answers.delete(id);
    this.#answers.set(streamId, { answer: { ...answer }, expiresAt: now + ttlMs });
  }

  async get(streamId: string): Promise<StreamAnswer | null> {
    const entry = this.#answers.get(streamId);
    if (!entry) return null;
    if (entry.expiresAt > this.#clock()) return { ...entry.answer };
    this.#answers.delete(streamId);
    return null;
  }
}
