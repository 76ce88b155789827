import type { RateLimit, RateLimiter, RateLimitTake } from '../ports.js';
import { checkRateLimit, intervalMs } from '../rate-limit-rules.js';
import { command, type RedisClient } from './connection.js';
import { LuaScript } from './scripts.js';

/*
 * rate-limit-rules.ts in Lua, one key per agent holding its TAT (epoch ms).
 * The clock is the server's TIME, read inside the script: every instance
 * judges against the same clock, however far their own clocks drift apart.
 * The key lives exactly until its TAT passes, when the bucket is full again
 * and nothing needs keeping. Redis 5+ replicates a script by its effects,
 * so reading TIME before a write is allowed.
 */
const NOW = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
local stored = tonumber(redis.call('GET', KEYS[1]))
local interval = tonumber(ARGV[1])
local function keep(tat)
  redis.call('SET', KEYS[1], string.format('%.3f', tat), 'PX', math.ceil(tat - now))
end
`;

// ARGV: interval ms, burst. Returns 0 when the call is counted, else the ms until one would be.
const TAKE = new LuaScript(`${NOW}
local tat = math.max(stored or now, now)
local allowed_at = tat - interval * (tonumber(ARGV[2]) - 1)
if allowed_at > now then return math.max(1, math.ceil(allowed_at - now)) end
keep(tat + interval)
return 0
`);

// ARGV: interval ms.
const GIVE_BACK = new LuaScript(`${NOW}
if not stored then return 0 end
local tat = stored - interval
if tat > now then keep(tat) else redis.call('DEL', KEYS[1]) end
return 1
`);

export class RedisRateLimiter implements RateLimiter {
  constructor(
    private readonly client: RedisClient,
    /** The agent's key: hash-tagged by agent (`{agentId}`), so the script touches one cluster slot. */
    private readonly keyOf: (agentId: string) => string,
  ) {}

  /** `now` is not used: the server's clock decides (see above). */
  async take(agentId: string, limit: RateLimit, _now: Date): Promise<RateLimitTake> {
    checkRateLimit(limit);
    const key = this.keyOf(agentId);
    const wait = await command(this.client, () => TAKE.run(this.client, [key], [intervalMs(limit), limit.burst]), key);
    return Number(wait) === 0 ? { ok: true } : { ok: false, retryAfterMs: Number(wait) };
  }

  async giveBack(agentId: string, limit: RateLimit, _now: Date): Promise<void> {
    checkRateLimit(limit);
    const key = this.keyOf(agentId);
    await command(this.client, () => GIVE_BACK.run(this.client, [key], [intervalMs(limit)]), key);
  }
}
