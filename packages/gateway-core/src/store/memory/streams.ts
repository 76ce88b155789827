import type { StreamAnswer, StreamStore } from '../ports.js';
import { KeyedListeners } from '../keyed-listeners.js';

interface Entry {
  answer: StreamAnswer;
  expiresAt: number;
}

/** Kept answers in this process; expired ones are dropped as they are met and on each write. */
export class MemoryStreamStore implements StreamStore {
  readonly #answers = new Map<string, Entry>();
  readonly #watchers = new KeyedListeners();
  readonly #clock: () => number;

  constructor(clock: () => number) {
    this.#clock = clock;
  }

  async keep(streamId: string, answer: StreamAnswer, ttlMs: number): Promise<void> {
    const now = this.#clock();
    // Only lost streams are kept, so the map stays small: a sweep per write is cheap.
    for (const [id, entry] of this.#answers) if (entry.expiresAt <= now) this.#answers.delete(id);
    this.#answers.set(streamId, { answer: { ...answer }, expiresAt: now + ttlMs });
    this.#watchers.emit(streamId);
  }

  async watch(streamId: string, onKept: () => void): Promise<() => void> {
    return this.#watchers.on(streamId, onKept);
  }

  async get(streamId: string): Promise<StreamAnswer | null> {
    const entry = this.#answers.get(streamId);
    if (!entry) return null;
    if (entry.expiresAt > this.#clock()) return { ...entry.answer };
    this.#answers.delete(streamId);
    return null;
  }
}
