import type { GenerationCounter } from '../ports.js';
import { acrossMasters, command, type RedisClient } from './connection.js';

/** A counter in one Redis key, shared by every instance. */
export class RedisGenerationCounter implements GenerationCounter {
  constructor(
    private readonly client: RedisClient,
    private readonly key: string,
  ) {}

  async generation(): Promise<number> {
    const value = await command(this.client, () => this.client.get(this.key), this.key);
    return value === null ? 0 : Number(value);
  }

  async bump(): Promise<number> {
    return command(this.client, () => this.client.incr(this.key), this.key);
  }
}

/**
 * A counter bumped by every write through the gateway, split over several
 * keys so the writes of a busy cluster do not all land on one master: a bump
 * increments one key (at random), and the generation is the sum of them all.
 * Every key only grows, so the sum grows with every bump, as one counter
 * would: a reader that starts after a bump has finished sees at least it.
 * The reads of the other keys go out with the increment, in one round trip.
 *
 * The sum goes back only if a key loses its value (a master that comes back
 * empty): run a cluster with persistence, as for the budgets.
 */
export class ShardedGenerationCounter implements GenerationCounter {
  constructor(
    private readonly client: RedisClient,
    private readonly keys: readonly string[],
  ) {}

  async generation(): Promise<number> {
    const values = await acrossMasters(this.client, this.keys, (key) => this.client.get(key));
    return values.reduce((sum, value) => sum + (value === null ? 0 : Number(value)), 0);
  }

  async bump(): Promise<number> {
    const bumped = Math.floor(Math.random() * this.keys.length);
    const values = await acrossMasters<number | string | null>(this.client, this.keys, (key, shard) =>
      shard === bumped ? this.client.incr(key) : this.client.get(key),
    );
    return values.reduce<number>((sum, value) => sum + (value === null ? 0 : Number(value)), 0);
  }
}
