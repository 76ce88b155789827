import { byCreation, definedFields } from '../agent-records.js';
import type { AgentPatch, AgentRecord, AgentStore } from '../ports.js';
import { command, type RedisClient } from './connection.js';
import type { Keys } from './keys.js';
import { LuaScript } from './scripts.js';

/*
 * One hash per agent, each field JSON-encoded, so a partial update is a plain
 * HSET of the patched fields and never a read-modify-write of the record.
 */

const CREATE = new LuaScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
redis.call('SADD', KEYS[2], ARGV[1])
return 1
`);

const UPDATE = new LuaScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
redis.call('HSET', KEYS[1], unpack(ARGV))
return redis.call('HGETALL', KEYS[1])
`);

const DELETE = new LuaScript(`
redis.call('SREM', KEYS[2], ARGV[1])
return redis.call('DEL', KEYS[1])
`);

export class RedisAgentStore implements AgentStore {
  constructor(
    private readonly client: RedisClient,
    private readonly keys: Keys,
  ) {}

  async create(agent: AgentRecord): Promise<void> {
    const created = await command(this.client, () =>
      CREATE.run(this.client, [this.keys.agent(agent.agentId), this.keys.agentIndex()], [agent.agentId, ...encode(agent)]),
    );
    if (created !== 1) throw new Error(`agent ${agent.agentId} already exists`);
  }

  async get(agentId: string): Promise<AgentRecord | null> {
    const fields = await command(this.client, () => this.client.hGetAll(this.keys.agent(agentId)));
    return decode(fields);
  }

  async list(): Promise<AgentRecord[]> {
    const ids = await command(this.client, () => this.client.sMembers(this.keys.agentIndex()));
    const records = await command(this.client, () => Promise.all(ids.map((id) => this.client.hGetAll(this.keys.agent(id)))));
    // An agent deleted between the two reads is simply left out.
    return records.flatMap((fields) => decode(fields) ?? []).sort(byCreation);
  }

  async update(agentId: string, patch: AgentPatch, updatedAt: string): Promise<AgentRecord | null> {
    const fields = encode({ ...definedFields(patch), updatedAt });
    const reply = await command(this.client, () => UPDATE.run(this.client, [this.keys.agent(agentId)], fields));
    return Array.isArray(reply) ? decode(pairsToObject(reply as string[])) : null;
  }

  async delete(agentId: string): Promise<boolean> {
    const deleted = await command(this.client, () => DELETE.run(this.client, [this.keys.agent(agentId), this.keys.agentIndex()], [agentId]));
    return deleted === 1;
  }
}

function encode(fields: Partial<AgentRecord>): string[] {
  return Object.entries(fields).flatMap(([name, value]) => [name, JSON.stringify(value)]);
}

function decode(fields: Record<string, string>): AgentRecord | null {
  if (Object.keys(fields).length === 0) return null;
  return Object.fromEntries(Object.entries(fields).map(([name, value]) => [name, JSON.parse(value)])) as AgentRecord;
}

function pairsToObject(pairs: string[]): Record<string, string> {
  const result: Record<string, string> = {};
  for (let i = 0; i + 1 < pairs.length; i += 2) result[pairs[i]!] = pairs[i + 1]!;
  return result;
}
