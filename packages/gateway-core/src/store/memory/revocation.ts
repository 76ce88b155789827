import type { RevocationStore } from '../ports.js';

export class MemoryRevocationStore implements RevocationStore {
  readonly #generations = new Map<string, number>();

  async generation(agentId: string): Promise<number> {
    return this.#generations.get(agentId) ?? 0;
  }

  async revokeAll(agentId: string): Promise<number> {
    const next = (this.#generations.get(agentId) ?? 0) + 1;
    this.#generations.set(agentId, next);
    return next;
  }

  async forget(agentId: string): Promise<void> {
    this.#generations.delete(agentId);
  }
}
