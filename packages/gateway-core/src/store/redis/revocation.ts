import type { RevocationStore } from '../ports.js';
import type { AgentReads } from './agent-reads.js';
import { command, type RedisClient } from './connection.js';
import type { Keys } from './keys.js';

export class RedisRevocationStore implements RevocationStore {
  constructor(
    private readonly client: RedisClient,
    private readonly keys: Keys,
    /** Shared with the agent store: a record and its generation asked for together are one command. */
    private readonly reads: AgentReads,
  ) {}

  async generation(agentId: string): Promise<number> {
    const value = await this.reads.generation(agentId);
    return value === null ? 0 : Number(value);
  }

  async revokeAll(agentId: string): Promise<number> {
    const key = this.keys.generation(agentId);
    return command(this.client, () => this.client.incr(key), key);
  }

  async forget(agentId: string): Promise<void> {
    const key = this.keys.generation(agentId);
    await command(this.client, () => this.client.del(key), key);
  }
}
