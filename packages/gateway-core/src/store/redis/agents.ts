import { byCreation, definedFields, subjectKey, subjectTaken, withDefaults } from '../agent-records.js';
import type { AgentPatch, AgentRecord, AgentStore, ExternalSubject } from '../ports.js';
import { pairsToObject, type AgentReads } from './agent-reads.js';
import { StoreUnavailableError } from '../../errors.js';
import { acrossMasters, command, refuseWhileAway, type RedisClient } from './connection.js';
import type { Keys } from './keys.js';
import { LuaScript } from './scripts.js';

/*
 * One hash per agent, each field JSON-encoded, so a partial update is a plain
 * HSET of the patched fields and never a read-modify-write of the record.
 * The agent's keys share its hash tag; the listing index and each external
 * identity live in other slots, so every script touches one key (or one
 * agent's slot) and the adapter works on a Redis Cluster.
 *
 * An identity key holds the id of the agent it belongs to. It is claimed
 * (with an expiry) before the agent's record is written, kept for good once
 * the record names it, and released after the record stops naming it. So a
 * writer that dies after claiming leaves a claim that lapses by itself; one
 * that dies before releasing leaves a lasting claim its agent does not
 * confirm, which the next claimant takes over.
 */

/** Long enough for a writer to write the record it claims for; a dead writer's claim lapses after it. */
const PENDING_CLAIM_MS = 30_000;

const CREATE = new LuaScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1
`);

const UPDATE = new LuaScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
redis.call('HSET', KEYS[1], unpack(ARGV))
return redis.call('HGETALL', KEYS[1])
`);

/** Deletes the record, returning the identities it named. */
const DELETE = new LuaScript(`
local subjects = redis.call('HGET', KEYS[1], 'externalSubjects')
if redis.call('DEL', KEYS[1]) == 0 then return false end
return subjects or '[]'
`);

/**
 * ARGV: the claiming agent, a lasting claim to take over ('' for none), the
 * pending claim's expiry. Nothing once claimed; else the owner and its
 * claim's PTTL (-1: lasting). A pending claim is never taken over.
 */
const CLAIM = new LuaScript(`
local owner = redis.call('GET', KEYS[1])
local ttl = owner and redis.call('PTTL', KEYS[1])
if owner and owner ~= ARGV[1] and not (owner == ARGV[2] and ttl == -1) then return {owner, ttl} end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
return false
`);

type ClaimReply = [owner: string, ttlMs: number] | null;

const KEEP = new LuaScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('PERSIST', KEYS[1]) end
return 1
`);

const RELEASE = new LuaScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
`);

export class RedisAgentStore implements AgentStore {
  constructor(
    private readonly client: RedisClient,
    private readonly keys: Keys,
    /** Shared with the revocation store: a record and its generation asked for together are one command. */
    private readonly reads: AgentReads,
  ) {}

  async create(agent: AgentRecord): Promise<void> {
    const record = withDefaults(agent);
    const key = this.keys.agent(agent.agentId);
    const index = this.#indexOf(agent.agentId);
    refuseWhileAway(this.client, [key, index, ...this.#identityKeys(record.externalSubjects)]);
    await this.#claim(record.agentId, record.externalSubjects);
    // Listed before it is written: a writer dying in between
    // leaves an id the listing skips, never an agent it cannot see.
    await command(this.client, () => this.client.sAdd(index, agent.agentId), index).catch(async (error: unknown) => {
      // Nothing of the agent written: its claims go now rather than lapse (meanwhile refusing the identities).
      if (error instanceof StoreUnavailableError)
        await this.#release(record.agentId, record.externalSubjects).catch(() => undefined);
      throw error;
    });
    const created = await command(this.client, () => CREATE.run(this.client, [key], encode(record)), key);
    if (created !== 1) {
      await this.#release(record.agentId, record.externalSubjects);
      throw new Error(`agent ${agent.agentId} already exists`);
    }
    await this.#keep(record.agentId, record.externalSubjects);
  }

  async get(agentId: string): Promise<AgentRecord | null> {
    return decode(await this.reads.record(agentId));
  }

  async list(): Promise<AgentRecord[]> {
    const shards = Array.from({ length: this.keys.shards }, (_, shard) => this.keys.agentIndex(shard));
    const ids = (await acrossMasters(this.client, shards, (key) => this.client.sMembers(key))).flat();
    const agentKeys = ids.map((id) => this.keys.agent(id));
    const records = await acrossMasters(this.client, agentKeys, (key) => this.client.hGetAll(key));
    // An agent deleted between the two reads is simply left out.
    return records.flatMap((fields) => decode(fields) ?? []).sort(byCreation);
  }

  async update(agentId: string, patch: AgentPatch, updatedAt: string): Promise<AgentRecord | null> {
    const defined = definedFields(patch);
    const subjects = defined.externalSubjects;
    const before = subjects === undefined ? [] : await this.#subjectsOf(agentId);
    const added = subjects === undefined ? [] : without(subjects, before);
    const key = this.keys.agent(agentId);
    refuseWhileAway(this.client, [key, ...this.#identityKeys(subjects === undefined ? [] : [...before, ...added])]);
    await this.#claim(agentId, added);
    const reply = await command(
      this.client,
      () => UPDATE.run(this.client, [key], encode({ ...defined, updatedAt })),
      key,
    );
    if (!Array.isArray(reply)) {
      await this.#release(agentId, added);
      return null;
    }
    await this.#keep(agentId, added);
    if (subjects !== undefined) await this.#release(agentId, without(before, subjects));
    return decode(pairsToObject(reply as string[]));
  }

  async delete(agentId: string): Promise<boolean> {
    const key = this.keys.agent(agentId);
    const index = this.#indexOf(agentId);
    // Refused whole while a master of its record, index or identities is away, before anything is removed.
    refuseWhileAway(this.client, [key, index]);
    refuseWhileAway(this.client, this.#identityKeys(await this.#subjectsOf(agentId)));
    const subjects = await command(this.client, () => DELETE.run(this.client, [key], []), key);
    await command(this.client, () => this.client.sRem(index, agentId), index);
    if (typeof subjects !== 'string') return false;
    await this.#release(agentId, JSON.parse(subjects) as ExternalSubject[]);
    return true;
  }

  async findByExternalSubject(subject: ExternalSubject): Promise<string | null> {
    const key = this.keys.externalSubject(subjectKey(subject));
    const owner = await command(this.client, () => this.client.get(key), key);
    return owner !== null && (await this.#confirms(owner, subject)) ? owner : null;
  }

  #indexOf(agentId: string): string {
    return this.keys.agentIndex(this.keys.shardOf(agentId));
  }

  #identityKeys(subjects: readonly ExternalSubject[]): string[] {
    return subjects.map((subject) => this.keys.externalSubject(subjectKey(subject)));
  }

  async #subjectsOf(agentId: string): Promise<ExternalSubject[]> {
    const key = this.keys.agent(agentId);
    const stored = await command(this.client, () => this.client.hGet(key, 'externalSubjects'), key);
    return stored ? (JSON.parse(stored) as ExternalSubject[]) : [];
  }

  /**
   * All or nothing: when one identity belongs to another agent,
   * those claimed here are released and SubjectTakenError thrown.
   */
  async #claim(agentId: string, subjects: readonly ExternalSubject[]): Promise<void> {
    const claimed: ExternalSubject[] = [];
    for (const subject of subjects) {
      const owner = await this.#claimOne(agentId, subject);
      if (owner !== null) {
        await this.#release(agentId, claimed);
        throw subjectTaken(subject, owner);
      }
      claimed.push(subject);
    }
  }

  /**
   * Null once claimed; else the agent that holds the identity. A
   * lasting claim whose agent does not name it is stale, and taken over.
   */
  async #claimOne(agentId: string, subject: ExternalSubject): Promise<string | null> {
    const key = this.keys.externalSubject(subjectKey(subject));
    const claim = (staleOwner: string) =>
      command(
        this.client,
        () => CLAIM.run(this.client, [key], [agentId, staleOwner, PENDING_CLAIM_MS]),
        key,
      ) as Promise<ClaimReply>;
    const taken = await claim('');
    if (taken === null) return null;
    const [owner, ttlMs] = taken;
    // A claim is made lasting only after its record names the identity: read after seeing it lasting,
    // a record that does not name it was changed by a writer that died before releasing the claim.
    if (ttlMs !== -1 || (await this.#confirms(owner, subject))) return owner;
    return (await claim(owner))?.[0] ?? null;
  }

  /** The record names these identities now: their claims no longer lapse. */
  async #keep(agentId: string, subjects: readonly ExternalSubject[]): Promise<void> {
    const keys = this.#identityKeys(subjects);
    await command(this.client, () => Promise.all(keys.map((key) => KEEP.run(this.client, [key], [agentId]))), keys);
  }

  /**
   * Whether the agent's record names the identity (a claim's
   * writer may have died before writing it, or after removing it).
   */
  async #confirms(agentId: string, subject: ExternalSubject): Promise<boolean> {
    return (await this.#subjectsOf(agentId)).some((listed) => subjectKey(listed) === subjectKey(subject));
  }

  async #release(agentId: string, subjects: readonly ExternalSubject[]): Promise<void> {
    const keys = this.#identityKeys(subjects);
    await command(this.client, () => Promise.all(keys.map((key) => RELEASE.run(this.client, [key], [agentId]))), keys);
  }
}

function without(subjects: readonly ExternalSubject[], removed: readonly ExternalSubject[]): ExternalSubject[] {
  const gone = new Set(removed.map(subjectKey));
  return subjects.filter((subject) => !gone.has(subjectKey(subject)));
}

function encode(fields: Partial<AgentRecord>): string[] {
  return Object.entries(fields).flatMap(([name, value]) => [name, JSON.stringify(value)]);
}

/** A record as HGETALL gives it (no fields: no agent). A plain loop: this runs on every call. */
function decode(fields: Record<string, string>): AgentRecord | null {
  const record: Record<string, unknown> = {};
  let found = false;
  for (const name in fields) {
    record[name] = JSON.parse(fields[name]!);
    found = true;
  }
  return found ? withDefaults(record as unknown as AgentRecord) : null;
}
