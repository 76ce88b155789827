import type { ChangeFeed, ToolListChange } from '../ports.js';

/**
 * One process: a change reaches this instance's listeners, after the publisher's turn (as a store round trip would).
 */
export class MemoryChangeFeed implements ChangeFeed {
  readonly #listeners = new Set<(change: ToolListChange) => void>();

  async publish(change: ToolListChange): Promise<void> {
    const copy = { ...change };
    queueMicrotask(() => {
      for (const listener of this.#listeners) listener(copy);
    });
  }

  subscribe(listener: (change: ToolListChange) => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }
}
