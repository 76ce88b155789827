/**
 * Per key (an agent, a stream), who wants to hear of something this process
 * learnt about it. `emitAll` tells every key's listeners at once.
 */
export class KeyedListeners {
  readonly #byKey = new Map<string, Set<() => void>>();

  /** `listener` must not throw; the returned function stops it. */
  on(key: string, listener: () => void): () => void {
    let listeners = this.#byKey.get(key);
    if (!listeners) this.#byKey.set(key, (listeners = new Set()));
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0 && this.#byKey.get(key) === listeners) this.#byKey.delete(key);
    };
  }

  emit(key: string): void {
    const listeners = this.#byKey.get(key);
    // A copy: a listener may stop itself (or start another) while it is told.
    if (listeners) for (const listener of [...listeners]) listener();
  }

  emitAll(): void {
    for (const key of [...this.#byKey.keys()]) this.emit(key);
  }
}
