import type { GenerationCounter } from '../ports.js';
import { command, type RedisClient } from './connection.js';

/** A counter in one Redis key, shared by every instance. */
export class RedisGenerationCounter implements GenerationCounter {
  constructor(
    private readonly client: RedisClient,
    private readonly key: string,
  ) {}

  async generation(): Promise<number> {
    const value = await command(this.client, () => this.client.get(this.key));
    return value === null ? 0 : Number(value);
  }

  async bump(): Promise<number> {
    return command(this.client, () => this.client.incr(this.key));
  }
}
