import type { GenerationCounter } from '../ports.js';

export class MemoryGenerationCounter implements GenerationCounter {
  #generation = 0;

  async generation(): Promise<number> {
    return this.#generation;
  }

  async bump(): Promise<number> {
    return ++this.#generation;
  }
}
