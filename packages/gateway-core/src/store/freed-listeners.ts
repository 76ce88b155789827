/**
 * Per agent, who wants to hear that this process freed budget tokens (a
 * settle, release or reset landed). Both ledger adapters use it for
 * `BudgetLedger.onFreed`; it only knows this process's own writes.
 */
export class FreedListeners {
  readonly #byAgent = new Map<string, Set<() => void>>();

  /** `listener` must not throw; the returned function stops it. */
  on(agentId: string, listener: () => void): () => void {
    let listeners = this.#byAgent.get(agentId);
    if (!listeners) this.#byAgent.set(agentId, (listeners = new Set()));
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0 && this.#byAgent.get(agentId) === listeners) this.#byAgent.delete(agentId);
    };
  }

  emit(agentId: string): void {
    const listeners = this.#byAgent.get(agentId);
    // A copy: a listener may stop itself (or start another) while it is told.
    if (listeners) for (const listener of [...listeners]) listener();
  }
}
