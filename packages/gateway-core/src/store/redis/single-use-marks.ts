import type { SingleUseMarks } from '../ports.js';
import { command, type RedisClient } from './connection.js';

/** One key per redemption, `SET NX PX`: one command, atomic on its own slot (so Cluster-safe). */
export class RedisSingleUseMarks implements SingleUseMarks {
  constructor(
    private readonly client: RedisClient,
    private readonly keyOf: (key: string) => string,
  ) {}

  async redeem(key: string, ttlMs: number): Promise<boolean> {
    const expiration = { type: 'PX', value: Math.max(1, Math.ceil(ttlMs)) } as const;
    const stored = this.keyOf(key);
    const set = await command(this.client, () => this.client.set(stored, '1', { condition: 'NX', expiration }), stored);
    return set === 'OK';
  }
}
