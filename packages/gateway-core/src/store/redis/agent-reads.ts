import { command, type RedisClient } from './connection.js';
import type { Keys } from './keys.js';
import { LuaScript } from './scripts.js';

// KEYS: the agent's record, its revocation generation (one slot: the agent's hash tag).
const RECORD_AND_GENERATION = new LuaScript(`
return {redis.call('HGETALL', KEYS[1]), redis.call('GET', KEYS[2])}
`);

/** An agent's record as stored: field -> JSON text (no fields: no agent). */
export type StoredFields = Record<string, string>;

interface Waiting<T> {
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
}

interface PendingReads {
  record: Waiting<StoredFields>[];
  generation: Waiting<string | null>[];
}

/**
 * An agent's record and its revocation generation, read with one command
 * when both are asked for in the same synchronous stretch, as authentication
 * does on every call (`AgentService.agentFor`): their keys share the agent's
 * hash tag, so one script reads both, in one slot. Asked for alone, each is
 * the plain command it always was. The reads leave in a microtask, still
 * before node-redis writes what this turn sent (it writes on setImmediate),
 * so they keep sharing the round trip of the commands sent around them.
 */
export class AgentReads {
  #pending = new Map<string, PendingReads>();

  constructor(
    private readonly client: RedisClient,
    private readonly keys: Keys,
  ) {}

  record(agentId: string): Promise<StoredFields> {
    return new Promise((resolve, reject) => this.#wanted(agentId).record.push({ resolve, reject }));
  }

  generation(agentId: string): Promise<string | null> {
    return new Promise((resolve, reject) => this.#wanted(agentId).generation.push({ resolve, reject }));
  }

  #wanted(agentId: string): PendingReads {
    let reads = this.#pending.get(agentId);
    if (reads === undefined) {
      if (this.#pending.size === 0) queueMicrotask(() => this.#send());
      this.#pending.set(agentId, (reads = { record: [], generation: [] }));
    }
    return reads;
  }

  #send(): void {
    const pending = this.#pending;
    this.#pending = new Map();
    for (const [agentId, reads] of pending) {
      if (reads.record.length > 0 && reads.generation.length > 0) this.#both(agentId, reads);
      else if (reads.record.length > 0) settle(reads.record, this.#record(this.keys.agent(agentId)));
      else settle(reads.generation, this.#generation(this.keys.generation(agentId)));
    }
  }

  #record(key: string): Promise<Record<string, string>> {
    return command(this.client, () => this.client.hGetAll(key), key);
  }

  #generation(key: string): Promise<string | null> {
    return command(this.client, () => this.client.get(key), key);
  }

  #both(agentId: string, reads: PendingReads): void {
    const keys = [this.keys.agent(agentId), this.keys.generation(agentId)];
    const reply = command(this.client, () => RECORD_AND_GENERATION.run(this.client, keys, []), keys) as Promise<
      [string[], string | null]
    >;
    settle(
      reads.record,
      reply.then(([pairs]) => pairsToObject(pairs)),
    );
    settle(
      reads.generation,
      reply.then(([, generation]) => generation),
    );
  }
}

function settle<T>(waiting: readonly Waiting<T>[], reply: Promise<T>): void {
  reply.then(
    (value) => {
      for (const waiter of waiting) waiter.resolve(value);
    },
    (error: unknown) => {
      for (const waiter of waiting) waiter.reject(error);
    },
  );
}

export function pairsToObject(pairs: readonly string[]): StoredFields {
  const result: StoredFields = {};
  for (let i = 0; i + 1 < pairs.length; i += 2) result[pairs[i]!] = pairs[i + 1]!;
  return result;
}
