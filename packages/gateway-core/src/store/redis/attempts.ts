import type { AttemptCounter, AttemptRecord } from '../ports.js';
import { command, type RedisClient } from './connection.js';
import { LuaScript } from './scripts.js';

// One hash per subject: n = failures, last = epoch ms of the latest; it expires ttl ms after the latest.
const RECORD_FAILURE = new LuaScript(`
local n = redis.call('HINCRBY', KEYS[1], 'n', 1)
redis.call('HSET', KEYS[1], 'last', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return n
`);

export class RedisAttemptCounter implements AttemptCounter {
  constructor(
    private readonly client: RedisClient,
    private readonly keyOf: (subject: string) => string,
  ) {}

  async recordFailure(subject: string, now: number, ttlMs: number): Promise<AttemptRecord> {
    const key = this.keyOf(subject);
    const failures = await command(
      this.client,
      () => RECORD_FAILURE.run(this.client, [key], [now, Math.max(1, Math.ceil(ttlMs))]),
      key,
    );
    return { failures: Number(failures), lastFailureAt: now };
  }

  async read(subject: string): Promise<AttemptRecord | null> {
    const key = this.keyOf(subject);
    const [failures, last] = await command(this.client, () => this.client.hmGet(key, ['n', 'last']), key);
    if (failures == null || last == null) return null;
    return { failures: Number(failures), lastFailureAt: Number(last) };
  }

  async clear(subject: string): Promise<void> {
    const key = this.keyOf(subject);
    await command(this.client, () => this.client.del(key), key);
  }
}
