import { auditIdMs, checkAuditQuery, matchesAuditQuery, type AuditEntry, type AuditPage, type AuditQuery, type AuditRecord } from '../audit-records.js';
import type { AuditRetention } from '../options.js';
import type { AuditLog } from '../ports.js';
import { command, type RedisClient } from './connection.js';
import type { Keys } from './keys.js';
import { LuaScript } from './scripts.js';
import { keySlot } from './slots.js';
import { mergedAuditPage, type ShardReader } from './audit-merge.js';

/*
 * Each record goes to two Redis Streams: its agent's (in the agent's slot)
 * and one shard of the stream of everything (`Keys.auditAll`, chosen by the
 * agent, so one agent's records keep their order there too). Streams are
 * capped by count (MAXLEN ~) and by age (MINID ~, from the server's clock),
 * and expire when idle past the age cap. A record is one field `r`: its JSON
 * without the id.
 *
 * One script per slot a batch touches. On one server that is one script for
 * the whole batch, and the agent stream reuses the id the shard of
 * everything assigned. On a cluster the two streams of a record are in
 * different slots: each assigns its own id, and a record's id in the agent's
 * view differs from its id in the view of everything (each is a cursor in
 * its own view). The view of everything reads every shard newest first and
 * merges them (`audit-merge.ts`).
 */

// KEYS: the streams of the batch (in one slot on a cluster).
// ARGV: maxRecords per shard of everything, maxRecordsPerAgent, maxAgeMs,
// then per record: index in KEYS of its shard of everything (0 = none), of its agent stream (0 = none), json.
// The agent stream reuses the id of the shard when both are in the call.
const APPEND = new LuaScript(`
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local min_id = string.format('%d-0', math.max(now - tonumber(ARGV[3]), 0))
for i = 4, #ARGV, 3 do
  local everything, agent, json = tonumber(ARGV[i]), tonumber(ARGV[i + 1]), ARGV[i + 2]
  local id = '*'
  if everything > 0 then
    id = redis.call('XADD', KEYS[everything], 'MAXLEN', '~', ARGV[1], '*', 'r', json)
  end
  if agent > 0 then
    redis.call('XADD', KEYS[agent], 'MAXLEN', '~', ARGV[2], id, 'r', json)
  end
end
for k = 1, #KEYS do
  redis.call('XTRIM', KEYS[k], 'MINID', '~', min_id)
  redis.call('PEXPIRE', KEYS[k], ARGV[3])
end
return #KEYS
`);

/** Most records one query reads before it returns a shorter page with a cursor to go on. */
export const AUDIT_SCAN_LIMIT = 10_000;
const CHUNK = 200;

/** The writes of one script: its streams, and per record which of them it goes to. */
interface SlotBatch {
  keys: string[];
  args: string[];
  /** Entries written to a shard of everything, and to their agent stream, by this script. */
  everything: AuditEntry[];
  agent: AuditEntry[];
}

export class RedisAuditLog implements AuditLog {
  /**
   * Entries already in a stream. The trail retries a failed batch with the
   * same entries; on a cluster part of it may have been written (another
   * slot's script succeeded), and that part is not written twice.
   */
  readonly #inEverything = new WeakSet<AuditEntry>();
  readonly #inAgent = new WeakSet<AuditEntry>();

  constructor(
    private readonly client: RedisClient,
    private readonly keys: Keys,
    private readonly retention: Required<AuditRetention>,
    private readonly cluster: boolean,
  ) {}

  async append(entries: readonly AuditEntry[]): Promise<void> {
    const batches = this.#bySlot(entries);
    const { maxRecords, maxRecordsPerAgent, maxAgeMs } = this.retention;
    const perShard = Math.ceil(maxRecords / this.keys.shards);
    const results = await Promise.allSettled(
      batches.map(async (batch) => {
        await command(this.client, () => APPEND.run(this.client, batch.keys, [perShard, maxRecordsPerAgent, maxAgeMs, ...batch.args]));
        for (const entry of batch.everything) this.#inEverything.add(entry);
        for (const entry of batch.agent) this.#inAgent.add(entry);
      }),
    );
    const failed = results.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /** The batch's writes grouped into scripts: one per slot on a cluster, one in all on one server. */
  #bySlot(entries: readonly AuditEntry[]): SlotBatch[] {
    const batches = new Map<number, SlotBatch & { index: Map<string, number> }>();
    const batchFor = (key: string) => {
      const slot = this.cluster ? keySlot(key) : 0;
      let batch = batches.get(slot);
      if (!batch) batches.set(slot, (batch = { keys: [], args: [], everything: [], agent: [], index: new Map() }));
      return batch;
    };
    const indexIn = (batch: SlotBatch & { index: Map<string, number> }, key: string) => {
      let index = batch.index.get(key);
      if (index === undefined) batch.index.set(key, (index = batch.keys.push(key)));
      return index;
    };
    for (const entry of entries) {
      const json = JSON.stringify(entry);
      const everythingKey = this.#inEverything.has(entry) ? null : this.keys.auditAll(this.keys.shardOf(entry.agentId));
      const agentKey = entry.agentId === null || this.#inAgent.has(entry) ? null : this.keys.auditAgent(entry.agentId);
      const together = everythingKey !== null && agentKey !== null && (!this.cluster || keySlot(everythingKey) === keySlot(agentKey));
      if (together) {
        const batch = batchFor(everythingKey);
        batch.args.push(String(indexIn(batch, everythingKey)), String(indexIn(batch, agentKey)), json);
        batch.everything.push(entry);
        batch.agent.push(entry);
        continue;
      }
      if (everythingKey !== null) {
        const batch = batchFor(everythingKey);
        batch.args.push(String(indexIn(batch, everythingKey)), '0', json);
        batch.everything.push(entry);
      }
      if (agentKey !== null) {
        const batch = batchFor(agentKey);
        batch.args.push('0', String(indexIn(batch, agentKey)), json);
        batch.agent.push(entry);
      }
    }
    return [...batches.values()].map(({ index: _, ...batch }) => batch);
  }

  async query(query: AuditQuery): Promise<AuditPage> {
    checkAuditQuery(query);
    // Trimming by age is approximate; reading is exact: nothing older than the cap is shown.
    const oldestShownMs = Date.now() - this.retention.maxAgeMs;
    const limits = { limit: query.limit, scanLimit: AUDIT_SCAN_LIMIT, chunk: CHUNK, oldestShownMs };
    const keep = (record: AuditRecord) => matchesAuditQuery(record, query);
    if (query.agentId !== undefined) {
      return mergedAuditPage([this.#reader(this.keys.auditAgent(query.agentId))], 1, query.before, limits, keep);
    }
    const shards = Array.from({ length: this.keys.shards }, (_, shard) => this.#reader(this.keys.auditAll(shard)));
    return mergedAuditPage(shards, this.keys.shards, query.before, limits, keep);
  }

  /** Reads one stream newest first, from an (inclusive or exclusive) end. */
  #reader(key: string): ShardReader {
    return async (end, count) => {
      const chunk = await command(this.client, () => this.client.xRevRange(key, end, '-', { COUNT: count }));
      return (chunk ?? []).map(({ id, message }) => ({ id, record: JSON.parse(message.r as string) as AuditEntry }));
    };
  }
}
