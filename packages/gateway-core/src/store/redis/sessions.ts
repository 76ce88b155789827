import { randomBytes } from 'node:crypto';
import type { SessionRecord, SessionStore } from '../ports.js';
import { command, type RedisClient } from './connection.js';
import { SESSION_TAG_LENGTH, type Keys } from './keys.js';
import { LuaScript } from './scripts.js';
import { keySlot, tagForSlot } from './slots.js';

/*
 * A session is one JSON value under its own id, whose expiry Redis moves on
 * every touch (GETEX … PX): touching stays one command, in the same round
 * trip as the agent reads. Each agent also has a sorted set of its session
 * ids (scored by creation) for the cap, in the agent's slot.
 *
 * Least recently used without a write on the hot path: every touch sets the
 * session's expiry to the idle TTL again, so its remaining time to live is
 * "idle TTL minus time since last use", and the session with the smallest
 * PTTL is the one idle longest. This assumes every instance uses the same
 * idle TTL; with different ones, a session last touched on an instance with
 * a longer TTL looks fresher than it is.
 *
 * On a Redis Cluster a session's key is in its agent's slot (its id begins
 * with a tag of that slot: `newSessionId`), so a session lives on its
 * agent's master and a master away never fails a call of an agent it does
 * not hold. Ids made before that (random throughout) may sit in another slot
 * than their set, so no one script reads their PTTLs. Creating a session therefore writes it first, then adds its id to
 * the set; only past the cap does it read the PTTL of each id in the set and
 * hand them to a second script, which picks the idlest ids still in the set,
 * removes them there (atomically: two creates racing at the cap never end
 * the same session, and together end exactly enough) and returns them; their
 * sessions are then deleted. Ids whose session is gone (expired or deleted)
 * leave the set without counting as ended. The set itself has no expiry: it
 * never holds more ids than the cap after a create, so a few KB at most per
 * agent stay behind an agent that stops opening sessions.
 */

// KEYS: agent's session set. ARGV: sessionId, createdAtMs, maxPerAgent.
// nil when the agent is within its cap; else every id in the set.
const ADD = new LuaScript(`
redis.call('ZADD', KEYS[1], 'NX', ARGV[2], ARGV[1])
if redis.call('ZCARD', KEYS[1]) <= tonumber(ARGV[3]) then return false end
return redis.call('ZRANGE', KEYS[1], 0, -1)
`);

// KEYS: agent's session set. ARGV: the new sessionId (never ended), maxPerAgent, then per id: id, pttl.
// Returns the ids it removed from the set as ended, idlest first.
const END_IDLEST = new LuaScript(`
local index, max = KEYS[1], tonumber(ARGV[2])
local candidates = {}
for i = 3, #ARGV, 2 do
  local id, ttl = ARGV[i], tonumber(ARGV[i + 1])
  local created = redis.call('ZSCORE', index, id)
  if created then
    if ttl == -2 then
      redis.call('ZREM', index, id)
    elseif id ~= ARGV[1] then
      if ttl == -1 then ttl = math.huge end
      candidates[#candidates + 1] = {id, ttl, tonumber(created), i}
    end
  end
end
-- Idle longest first; of two last used in the same millisecond, the older one.
table.sort(candidates, function(a, b)
  if a[2] ~= b[2] then return a[2] < b[2] end
  if a[3] ~= b[3] then return a[3] < b[3] end
  return a[4] < b[4]
end)
local ended = {}
local excess = redis.call('ZCARD', index) - max
for i = 1, math.min(excess, #candidates) do
  redis.call('ZREM', index, candidates[i][1])
  ended[#ended + 1] = candidates[i][1]
end
return ended
`);

export class RedisSessionStore implements SessionStore {
  constructor(
    private readonly client: RedisClient,
    private readonly keys: Keys,
  ) {}

  /** The tag of the agent's slot, then 29 random characters (174 bits): 32 characters, as every session id. */
  newSessionId(agentId: string): string {
    const tag = tagForSlot(keySlot(this.keys.agent(agentId)));
    return (
      tag +
      randomBytes(24)
        .toString('base64url')
        .slice(0, 32 - SESSION_TAG_LENGTH)
    );
  }

  async create(session: SessionRecord, idleTtlMs: number, maxPerAgent: number): Promise<string[]> {
    const index = this.keys.agentSessions(session.agentId);
    // Written before its id joins the set, so every id in the set has had a session to end.
    const key = this.keys.session(session.sessionId);
    await command(
      this.client,
      () => this.client.set(key, JSON.stringify(session), { expiration: { type: 'PX', value: idleTtlMs } }),
      key,
    );
    const ids = (await command(
      this.client,
      () => ADD.run(this.client, [index], [session.sessionId, Date.now(), maxPerAgent]),
      index,
    )) as string[] | null;
    if (ids === null) return [];
    const sessionKeys = ids.map((id) => this.keys.session(id));
    const ttls = await command(
      this.client,
      () => Promise.all(sessionKeys.map((sessionKey) => this.client.pTTL(sessionKey))),
      sessionKeys,
    );
    const args = ids.flatMap((id, i) => [id, ttls[i]!]);
    const ended = (await command(
      this.client,
      () => END_IDLEST.run(this.client, [index], [session.sessionId, maxPerAgent, ...args]),
      index,
    )) as string[];
    const endedKeys = ended.map((id) => this.keys.session(id));
    await command(this.client, () => Promise.all(endedKeys.map((endedKey) => this.client.del(endedKey))), endedKeys);
    return ended;
  }

  async touch(sessionId: string, idleTtlMs: number): Promise<SessionRecord | null> {
    const key = this.keys.session(sessionId);
    const value = await command(this.client, () => this.client.getEx(key, { type: 'PX', value: idleTtlMs }), key);
    return value === null ? null : (JSON.parse(value) as SessionRecord);
  }

  async delete(sessionId: string): Promise<boolean> {
    const key = this.keys.session(sessionId);
    return (await command(this.client, () => this.client.del(key), key)) === 1;
  }
}
