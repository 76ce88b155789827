import type { ToolRegistryState } from '../ports.js';

export class MemoryToolRegistryState implements ToolRegistryState {
  #generation = 0;

  async generation(): Promise<number> {
    return this.#generation;
  }

  async bump(): Promise<number> {
    return ++this.#generation;
  }
}
