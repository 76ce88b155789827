import type { StreamAnswer, StreamStore } from '../ports.js';
import { command, type RedisClient } from './connection.js';
import type { Keys } from './keys.js';

/** A kept answer is one JSON value with an expiry, readable from every instance. */
export class RedisStreamStore implements StreamStore {
  constructor(
    private readonly client: RedisClient,
    private readonly keys: Keys,
  ) {}

  async keep(streamId: string, answer: StreamAnswer, ttlMs: number): Promise<void> {
    await command(this.client, () => this.client.set(this.keys.stream(streamId), JSON.stringify(answer), { expiration: { type: 'PX', value: ttlMs } }));
  }

  async get(streamId: string): Promise<StreamAnswer | null> {
    const value = await command(this.client, () => this.client.get(this.keys.stream(streamId)));
    return value === null ? null : (JSON.parse(value) as StreamAnswer);
  }
}
