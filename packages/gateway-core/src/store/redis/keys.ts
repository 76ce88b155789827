import { createHash } from 'node:crypto';
import { shardOf, spreadTags } from './slots.js';

/** The characters of a session id that are its hash tag (see `Keys.session`). */
export const SESSION_TAG_LENGTH = 3;

/**
 * Every key the Redis adapter touches, in one place, laid out for a Redis
 * Cluster as well as for one server:
 *
 * - Everything of one agent carries the hash tag `{<agentId>}` (record,
 *   revocation generation, budget days, session index, audit stream), so it
 *   shares one slot: a script may touch any of it, and agents spread over
 *   the masters.
 * - Keys of one thing each (a session, a kept stream answer, a cached answer,
 *   a sign-in counter) carry no tag and spread by their own hash.
 * - What would otherwise be one key for everyone (the agent index, the audit
 *   stream of everything, the cache generation) is split into `shards` keys
 *   whose tags sit in evenly spaced slot ranges (`spreadTags`), so no single
 *   master takes every call. One server needs no split: it has one shard.
 */
export class Keys {
  readonly #shardTags: string[];

  constructor(
    private readonly prefix: string,
    readonly shards: number,
  ) {
    this.#shardTags = spreadTags(shards);
  }

  /** The pub/sub channel of tool-list changes (a channel, not a key: nothing is stored under it). */
  toolListChanges(): string {
    return `${this.prefix}changes:tools`;
  }

  agent(agentId: string): string {
    return `${this.prefix}agent:{${agentId}}`;
  }

  /** Sets of agent ids, for listing; an agent is in the set of `shardOf(agentId)`. */
  agentIndex(shard: number): string {
    return `${this.prefix}agents:{${this.#shardTags[shard]}}`;
  }

  /**
   * Which agent an external identity belongs to. Its own key (and slot) per
   * identity, named by a digest so no issuer or subject text shapes the key.
   */
  externalSubject(subjectKey: string): string {
    return `${this.prefix}ext:${createHash('sha256').update(subjectKey).digest('base64url')}`;
  }

  generation(agentId: string): string {
    return `${this.prefix}gen:{${agentId}}`;
  }

  /** Hash of one agent's UTC day: `used` plus one `r:<id>` field per open reservation. */
  budgetDay(agentId: string, day: string): string {
    return `${this.prefix}budget:{${agentId}}:${day}`;
  }

  /** One agent's rate-limit bucket (its theoretical arrival time). */
  rateLimit(agentId: string): string {
    return `${this.prefix}rate:{${agentId}}`;
  }

  /**
   * A session, on a cluster in its agent's slot: a session id begins with a
   * hash tag of the agent's slot (`RedisSessionStore.newSessionId`), so an
   * agent's session is on the master that holds the agent, found by its id
   * alone. One server keeps the plain key (no slots: nothing to gain, and its
   * sessions outlive an upgrade).
   */
  session(sessionId: string): string {
    if (this.shards === 1) return `${this.prefix}session:${sessionId}`;
    return `${this.prefix}session:{${sessionId.slice(0, SESSION_TAG_LENGTH)}}${sessionId.slice(SESSION_TAG_LENGTH)}`;
  }

  /** Sorted set of one agent's session ids, scored by creation time, for the per-agent cap. */
  agentSessions(agentId: string): string {
    return `${this.prefix}sessions:{${agentId}}`;
  }

  /** The kept answer of a stream a client lost. */
  stream(streamId: string): string {
    return `${this.prefix}stream:${streamId}`;
  }

  /** The pub/sub channel on which an instance that kept a stream's answer names the stream (a channel, not a key). */
  streamNotices(): string {
    return `${this.prefix}stream-kept`;
  }

  /** One shard of the stream of every audit record (the admin view reads them all, merged). */
  auditAll(shard: number): string {
    return `${this.prefix}audit:all:{${this.#shardTags[shard]}}`;
  }

  /** Stream of one agent's audit records. */
  auditAgent(agentId: string): string {
    return `${this.prefix}audit:agent:{${agentId}}`;
  }

  /**
   * Marks one audit batch as written, in the slot of `streamKey` (a stream of
   * the batch), so the batch's script may set it on a cluster.
   */
  auditWritten(streamKey: string, writeId: string): string {
    const tag = /\{([^}]*)\}/.exec(streamKey)?.[1] ?? '';
    return `${this.prefix}audit:written:{${tag}}:${writeId}`;
  }

  /**
   * Usage counters of one agent's UTC day (hash, fields per hour and cell).
   * Tagged by agent and day, not by agent alone: the busy days of a busy
   * agent spread over the masters, and one read returns a day's 24 hours.
   */
  usageDay(agentId: string, day: string): string {
    return `${this.prefix}usage:{${agentId}:${day}}`;
  }

  /** A usage write's written-marker, in the slot of the agent's day hash it was added to. */
  usageWritten(agentId: string, day: string, writeId: string): string {
    return `${this.prefix}usage:written:{${agentId}:${day}}:${writeId}`;
  }

  /** The agents with usage on a UTC day; written once per agent and day by each instance. */
  usageAgents(day: string): string {
    return `${this.prefix}usage:agents:${day}`;
  }

  /** A cached response (exact tier). */
  cachedResponse(key: string): string {
    return `${this.prefix}cache:r:${key}`;
  }

  /** Hash of one semantic candidate group: responseKey -> `<expiresAtMs>:<base64 vector>`. */
  cacheCandidates(groupKey: string): string {
    return `${this.prefix}cache:c:${groupKey}`;
  }

  /** One shard of the cache generation; the generation is the sum of the shards. */
  cacheGeneration(shard: number): string {
    return `${this.prefix}cache:generation:{${this.#shardTags[shard]}}`;
  }

  /** A redeemed write confirmation (its `requestState`'s nonce): spread over the slots by the nonce itself. */
  redeemed(key: string): string {
    return `${this.prefix}redeemed:${key}`;
  }

  /** Failed admin sign-ins of one client address. */
  signInAttempts(subject: string): string {
    return `${this.prefix}signin:attempts:${subject}`;
  }

  /** Read every few seconds and bumped by an admin refresh: one key is no hot spot. */
  toolRegistryGeneration(): string {
    return `${this.prefix}tools:generation`;
  }

  /** The shard of the sharded keys an agent's writes go to (records of no agent: shard 0). */
  shardOf(agentId: string | null): number {
    return agentId === null ? 0 : shardOf(agentId, this.shards);
  }
}
