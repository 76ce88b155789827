import type { ResponseCache, SemanticCandidate } from '../ports.js';
import { command, type RedisClient } from './connection.js';
import type { Keys } from './keys.js';
import { LuaScript } from './scripts.js';

/*
 * A cached response is a string with a TTL. A candidate group is one hash,
 * field = responseKey, value = `<expiresAtMs>:<base64 of the Float32 bytes>`
 * (a 512-dimension vector is 2.7 kB), bounded by the script that adds to it.
 * The hash itself lives as long as its longest-lived candidate.
 */

// KEYS: group. ARGV: responseKey, value, nowMs, maxCandidates, ttlMs
const ADD_CANDIDATE = new LuaScript(`
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
local max = tonumber(ARGV[4])
if redis.call('HLEN', KEYS[1]) > max then
  local now = tonumber(ARGV[3])
  local fields = redis.call('HGETALL', KEYS[1])
  local oldest, oldest_expiry = nil, nil
  for i = 1, #fields, 2 do
    local expiry = tonumber(string.match(fields[i + 1], '^(%d+):'))
    if expiry <= now then
      redis.call('HDEL', KEYS[1], fields[i])
    elseif fields[i] ~= ARGV[1] and (oldest_expiry == nil or expiry < oldest_expiry) then
      oldest, oldest_expiry = fields[i], expiry
    end
  end
  if oldest and redis.call('HLEN', KEYS[1]) > max then redis.call('HDEL', KEYS[1], oldest) end
end
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[5]) then redis.call('PEXPIRE', KEYS[1], ARGV[5]) end
return 1
`);

export class RedisResponseCache implements ResponseCache {
  constructor(
    private readonly client: RedisClient,
    private readonly keys: Keys,
  ) {}

  async get(key: string): Promise<string | null> {
    const stored = this.keys.cachedResponse(key);
    return command(this.client, () => this.client.get(stored), stored);
  }

  async set(key: string, text: string, ttlMs: number): Promise<void> {
    const stored = this.keys.cachedResponse(key);
    await command(
      this.client,
      () => this.client.set(stored, text, { expiration: { type: 'PX', value: ttlMs } }),
      stored,
    );
  }

  async candidates(groupKey: string): Promise<SemanticCandidate[]> {
    const key = this.keys.cacheCandidates(groupKey);
    const fields = await command(this.client, () => this.client.hGetAll(key), key);
    const now = Date.now();
    const live: SemanticCandidate[] = [];
    for (const [responseKey, value] of Object.entries(fields)) {
      const colon = value.indexOf(':');
      if (Number(value.slice(0, colon)) <= now) continue;
      live.push({ responseKey, vector: decodeVector(value.slice(colon + 1)) });
    }
    return live;
  }

  async addCandidate(
    groupKey: string,
    candidate: SemanticCandidate,
    ttlMs: number,
    maxCandidates: number,
  ): Promise<void> {
    const now = Date.now();
    const value = `${now + ttlMs}:${encodeVector(candidate.vector)}`;
    const key = this.keys.cacheCandidates(groupKey);
    await command(
      this.client,
      () => ADD_CANDIDATE.run(this.client, [key], [candidate.responseKey, value, now, maxCandidates, ttlMs]),
      key,
    );
  }
}

export function encodeVector(vector: Float32Array): string {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString('base64');
}

export function decodeVector(base64: string): Float32Array {
  const bytes = Buffer.from(base64, 'base64');
  // Copied into a fresh buffer: a decoded Buffer may sit at an offset that is not a multiple of 4.
  const vector = new Float32Array(bytes.length / Float32Array.BYTES_PER_ELEMENT);
  new Uint8Array(vector.buffer).set(bytes);
  return vector;
}
