import type { SessionRecord, SessionStore } from '../ports.js';
import { command, type RedisClient } from './connection.js';
import type { Keys } from './keys.js';
import { LuaScript } from './scripts.js';

/*
 * A session is one JSON value whose expiry Redis moves on every touch
 * (GETEX … PX): touching stays one command, in the same round trip as the
 * agent reads. Each agent also has a sorted set of its session ids (scored by
 * creation) for the cap.
 *
 * Least recently used without a write on the hot path: every touch sets the
 * session's expiry to the idle TTL again, so its remaining time to live is
 * "idle TTL minus time since last use", and the session with the smallest
 * PTTL is the one idle longest. Creating a session past the cap reads the
 * PTTL of each of the agent's sessions (at most the cap), drops the ids whose
 * session is gone (expired or deleted), and ends the ones idle longest. This
 * assumes every instance uses the same idle TTL; with different ones, a
 * session last touched on an instance with a longer TTL looks fresher than
 * it is. The set itself has no expiry: it never holds more ids than the cap
 * after a create, so a few KB at most per agent stay behind an agent that
 * stops opening sessions.
 *
 * The script reads the session keys named in the set, which it cannot
 * declare up front: like the rest of this adapter, it expects one Redis
 * (or a primary), not a Redis Cluster.
 */

// KEYS: agent's session set, new session key. ARGV: sessionId, json, idleTtlMs, maxPerAgent, createdAtMs, session key prefix.
const CREATE = new LuaScript(`
local index, prefix, max = KEYS[1], ARGV[6], tonumber(ARGV[4])
local ended = {}
if redis.call('ZCARD', index) >= max then
  local live = {}
  local ids = redis.call('ZRANGE', index, 0, -1)
  for i = 1, #ids do
    local ttl = redis.call('PTTL', prefix .. ids[i])
    if ttl == -2 then
      redis.call('ZREM', index, ids[i])
    else
      if ttl == -1 then ttl = math.huge end
      live[#live + 1] = {ids[i], ttl, i}
    end
  end
  -- Idle longest first; of two last used in the same millisecond, the older one.
  table.sort(live, function(a, b)
    if a[2] ~= b[2] then return a[2] < b[2] end
    return a[3] < b[3]
  end)
  for i = 1, #live - (max - 1) do
    redis.call('DEL', prefix .. live[i][1])
    redis.call('ZREM', index, live[i][1])
    ended[#ended + 1] = live[i][1]
  end
end
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
redis.call('ZADD', index, ARGV[5], ARGV[1])
return ended
`);

export class RedisSessionStore implements SessionStore {
  constructor(
    private readonly client: RedisClient,
    private readonly keys: Keys,
  ) {}

  async create(session: SessionRecord, idleTtlMs: number, maxPerAgent: number): Promise<string[]> {
    const keys = [this.keys.agentSessions(session.agentId), this.keys.session(session.sessionId)];
    const args = [session.sessionId, JSON.stringify(session), idleTtlMs, maxPerAgent, Date.now(), this.keys.session('')];
    return (await command(this.client, () => CREATE.run(this.client, keys, args))) as string[];
  }

  async touch(sessionId: string, idleTtlMs: number): Promise<SessionRecord | null> {
    const value = await command(this.client, () => this.client.getEx(this.keys.session(sessionId), { type: 'PX', value: idleTtlMs }));
    return value === null ? null : (JSON.parse(value) as SessionRecord);
  }

  async delete(sessionId: string): Promise<boolean> {
    return (await command(this.client, () => this.client.del(this.keys.session(sessionId)))) === 1;
  }
}
