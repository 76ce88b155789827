import type { ToolRegistryState } from '../ports.js';
import { command, type RedisClient } from './connection.js';
import type { Keys } from './keys.js';

export class RedisToolRegistryState implements ToolRegistryState {
  constructor(
    private readonly client: RedisClient,
    private readonly keys: Keys,
  ) {}

  async generation(): Promise<number> {
    const value = await command(() => this.client.get(this.keys.toolRegistryGeneration()));
    return value === null ? 0 : Number(value);
  }

  async bump(): Promise<number> {
    return command(() => this.client.incr(this.keys.toolRegistryGeneration()));
  }
}
