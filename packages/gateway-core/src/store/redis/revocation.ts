import type { RevocationStore } from '../ports.js';
import { command, type RedisClient } from './connection.js';
import type { Keys } from './keys.js';

export class RedisRevocationStore implements RevocationStore {
  constructor(
    private readonly client: RedisClient,
    private readonly keys: Keys,
  ) {}

  async generation(agentId: string): Promise<number> {
    const value = await command(this.client, () => this.client.get(this.keys.generation(agentId)));
    return value === null ? 0 : Number(value);
  }

  async revokeAll(agentId: string): Promise<number> {
    return command(this.client, () => this.client.incr(this.keys.generation(agentId)));
  }

  async forget(agentId: string): Promise<void> {
    await command(this.client, () => this.client.del(this.keys.generation(agentId)));
  }
}
