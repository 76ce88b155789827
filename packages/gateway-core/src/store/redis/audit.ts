import { randomBytes } from 'node:crypto';
import {
  checkAuditQuery,
  matchesAuditQuery,
  type AuditEntry,
  type AuditPage,
  type AuditQuery,
  type AuditRecord,
} from '../audit-records.js';
import type { AuditRetention } from '../options.js';
import type { AuditLog } from '../ports.js';
import { acrossMasters, command, type RedisClient } from './connection.js';
import type { Keys } from './keys.js';
import { LuaScript } from './scripts.js';
import { keySlot } from './slots.js';
import { mergedAuditPage, type ShardReader } from './audit-merge.js';

/*
 * Each record goes to two Redis Streams: its agent's (in the agent's slot)
 * and one shard of the stream of everything (`Keys.auditAll`, chosen by the
 * agent, so one agent's records keep their order there too). Streams are
 * capped by count (MAXLEN ~, on every append) and by age (MINID ~, from the
 * server's clock), and expire when idle past the age cap. A record is one
 * field `r`: its JSON without the id.
 *
 * The age cap and the expiry are kept up at most once per second per stream
 * by each instance (`MAINTAIN_EVERY_MS`), not on every append: a busy stream
 * would otherwise pay an XTRIM and a PEXPIRE per record. So a record past the
 * age cap stays stored up to that second longer (reading hides it anyway),
 * and the expiry is set to the age cap plus that second, so a stream does
 * not expire before its newest record has reached the age cap.
 *
 * One script per slot a batch touches. On one server that is one script for
 * the whole batch, and the agent stream reuses the id the shard of
 * everything assigned. On a cluster the two streams of a record are in
 * different slots: each assigns its own id, and a record's id in the agent's
 * view differs from its id in the view of everything (each is a cursor in
 * its own view). The view of everything reads every shard newest first and
 * merges them (`audit-merge.ts`).
 */

// KEYS: the streams of the batch (in one slot on a cluster), then the batch's written-marker (same slot).
// ARGV: maxRecords per shard of everything, maxRecordsPerAgent, maxAgeMs, the streams' expiry (ms),
// which KEYS to trim by age and expire ('1' or '0' per stream, in order), the marker's lifetime (ms),
// then per record: index in KEYS of its shard of everything (0 = none), of its agent stream (0 = none), json.
// The agent stream reuses the id of the shard when both are in the call.
// The marker makes a batch land once: a batch the gateway gave up waiting for may still run (a frozen
// Redis wakes up), and its retry, which carries the same marker, then writes nothing.
const APPEND = new LuaScript(`
local streams = #KEYS - 1
if not redis.call('SET', KEYS[#KEYS], '1', 'NX', 'PX', ARGV[6]) then return 0 end
for i = 7, #ARGV, 3 do
  local everything, agent, json = tonumber(ARGV[i]), tonumber(ARGV[i + 1]), ARGV[i + 2]
  local id = '*'
  if everything > 0 then
    id = redis.call('XADD', KEYS[everything], 'MAXLEN', '~', ARGV[1], '*', 'r', json)
  end
  if agent > 0 then
    redis.call('XADD', KEYS[agent], 'MAXLEN', '~', ARGV[2], id, 'r', json)
  end
end
local maintain = ARGV[5]
if string.find(maintain, '1', 1, true) then
  local time = redis.call('TIME')
  local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  local min_id = string.format('%d-0', math.max(now - tonumber(ARGV[3]), 0))
  for k = 1, streams do
    if string.sub(maintain, k, k) == '1' then
      redis.call('XTRIM', KEYS[k], 'MINID', '~', min_id)
      redis.call('PEXPIRE', KEYS[k], ARGV[4])
    end
  end
end
return streams
`);

/** Most records one query reads before it returns a shorter page with a cursor to go on. */
export const AUDIT_SCAN_LIMIT = 10_000;
const CHUNK = 200;

/** How often, at most, one instance trims a stream by age and sets its expiry again. */
export const MAINTAIN_EVERY_MS = 1_000;
/** Streams whose last upkeep is remembered; past it the memory starts over (each stream then gets one early upkeep). */
const MAX_REMEMBERED_STREAMS = 10_000;

/** Where a script's arguments say which streams to keep up (see APPEND); the records follow. */
const UPKEEP_ARG = 4;

/**
 * How long a batch's written-marker lives: longer than any retry of the
 * batch can come after the batch itself (retries back off to 5 s). One
 * small key per script; past this a retry could write the batch again.
 */
export const WRITTEN_MARKER_MS = 5 * 60 * 1000;
/**
 * Batches that got no answer, kept for their retry; past this many the oldest are forgotten (the trail dropped them).
 */
const MAX_UNANSWERED_BATCHES = 1_000;

/** Batch ids: random per process, then a counter (unique across instances, as reservation ids are). */
const WRITE_ID_PREFIX = `${randomBytes(12).toString('base64url')}.`;
let writeCounter = 0;

/** The writes of one script: its streams, and per record which of them it goes to. */
class SlotBatch {
  readonly keys: string[] = [];
  /** The script's arguments: the retention's, a placeholder for the streams to keep up, then the records'. */
  readonly args: string[];
  /** Entries written to a shard of everything, and to their agent stream, by this script. */
  readonly everything: AuditEntry[] = [];
  readonly agent: AuditEntry[] = [];

  /** The batch's written-marker key, in its slot; set with the first stream. */
  marker = '';
  readonly writeId = WRITE_ID_PREFIX + (writeCounter++).toString(36);

  constructor(retentionArgs: readonly string[]) {
    this.args = [...retentionArgs, '', String(WRITTEN_MARKER_MS)];
  }

  /** Each key's 1-based index in KEYS, as the script's argument (a batch of many agents has many keys). */
  readonly #index = new Map<string, string>();

  /** The key's index in KEYS, added on first use. */
  indexOf(key: string): string {
    let index = this.#index.get(key);
    if (index === undefined) this.#index.set(key, (index = String(this.keys.push(key))));
    return index;
  }
}

export class RedisAuditLog implements AuditLog {
  /**
   * Entries already in a stream. The trail retries a failed batch with the
   * same entries; on a cluster part of it may have been written (another
   * slot's script succeeded), and that part is not written twice.
   */
  readonly #inEverything = new WeakSet<AuditEntry>();
  readonly #inAgent = new WeakSet<AuditEntry>();
  /**
   * Scripts that got no answer, which may still run (late): their entries
   * are sent again in the very same script, with its marker, so whichever
   * copy lands second writes nothing. Per entry, the scripts it is in (on a
   * cluster, its two streams may be in two).
   */
  readonly #unanswered = new Set<SlotBatch>();
  readonly #unansweredOf = new WeakMap<AuditEntry, SlotBatch[]>();
  /** Per stream, when this instance last trimmed it by age and set its expiry (performance.now()). */
  readonly #maintainedAt = new Map<string, number>();
  /** The first arguments of every APPEND: caps and expiry, as strings once. */
  readonly #retentionArgs: readonly string[];

  constructor(
    private readonly client: RedisClient,
    private readonly keys: Keys,
    private readonly retention: Required<AuditRetention>,
    private readonly cluster: boolean,
  ) {
    const { maxRecords, maxRecordsPerAgent, maxAgeMs } = retention;
    const perShard = Math.ceil(maxRecords / keys.shards);
    this.#retentionArgs = [perShard, maxRecordsPerAgent, maxAgeMs, maxAgeMs + MAINTAIN_EVERY_MS].map(String);
  }

  async append(entries: readonly AuditEntry[]): Promise<void> {
    const again = this.#unanswered.size === 0 ? [] : this.#sentBefore(entries);
    const batches =
      again.length === 0
        ? this.#bySlot(entries)
        : [...again, ...this.#bySlot(entries.filter((entry) => !this.#unansweredOf.has(entry)))];
    // One script: it succeeds and the trail never hands these entries
    // again, or it fails (and is kept to be sent again as it is).
    if (batches.length === 1 && again.length === 0) return this.#write(batches[0]!, false);
    const results = await Promise.allSettled(batches.map((batch) => this.#write(batch, true)));
    const failed = results.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /** The unanswered scripts the entries were in: sent again whole, marker and all. */
  #sentBefore(entries: readonly AuditEntry[]): SlotBatch[] {
    const batches = new Set<SlotBatch>();
    for (const entry of entries) for (const batch of this.#unansweredOf.get(entry) ?? []) batches.add(batch);
    return [...batches];
  }

  /** Runs one script; `remember`: mark its entries as written, for a retry of a batch another script of failed. */
  async #write(batch: SlotBatch, remember: boolean): Promise<void> {
    const maintain = this.#dueForUpkeep(batch.keys);
    batch.args[UPKEEP_ARG] = maintain;
    batch.marker ||= this.keys.auditWritten(batch.keys[0]!, batch.writeId);
    try {
      const keys = [...batch.keys, batch.marker];
      await command(this.client, () => APPEND.run(this.client, keys, batch.args), keys);
    } catch (error) {
      // Not kept up after all: the retry does it.
      for (let k = 0; k < batch.keys.length; k++) if (maintain[k] === '1') this.#maintainedAt.delete(batch.keys[k]!);
      this.#keepUnanswered(batch);
      throw error;
    }
    if (this.#unanswered.delete(batch)) this.#forgetUnanswered(batch);
    if (!remember) return;
    for (const entry of batch.everything) this.#inEverything.add(entry);
    for (const entry of batch.agent) this.#inAgent.add(entry);
  }

  #keepUnanswered(batch: SlotBatch): void {
    if (this.#unanswered.has(batch)) return;
    if (this.#unanswered.size >= MAX_UNANSWERED_BATCHES) {
      const oldest = this.#unanswered.values().next().value!;
      this.#unanswered.delete(oldest);
      this.#forgetUnanswered(oldest);
    }
    this.#unanswered.add(batch);
    for (const entry of new Set([...batch.everything, ...batch.agent])) {
      const scripts = this.#unansweredOf.get(entry);
      if (scripts) scripts.push(batch);
      else this.#unansweredOf.set(entry, [batch]);
    }
  }

  #forgetUnanswered(batch: SlotBatch): void {
    for (const entry of new Set([...batch.everything, ...batch.agent])) {
      const scripts = this.#unansweredOf.get(entry)?.filter((other) => other !== batch);
      if (scripts === undefined || scripts.length === 0) this.#unansweredOf.delete(entry);
      else this.#unansweredOf.set(entry, scripts);
    }
  }

  /** '1' per stream whose upkeep is due (marked as done now), '0' otherwise. */
  #dueForUpkeep(keys: readonly string[]): string {
    const now = performance.now();
    if (this.#maintainedAt.size > MAX_REMEMBERED_STREAMS) this.#maintainedAt.clear();
    let flags = '';
    for (const key of keys) {
      const last = this.#maintainedAt.get(key);
      const due = last === undefined || now - last >= MAINTAIN_EVERY_MS;
      if (due) this.#maintainedAt.set(key, now);
      flags += due ? '1' : '0';
    }
    return flags;
  }

  /** The batch's writes grouped into scripts: one per slot on a cluster, one in all on one server. */
  #bySlot(entries: readonly AuditEntry[]): SlotBatch[] {
    const batches = new Map<number, SlotBatch>();
    const batchFor = (key: string) => {
      const slot = this.cluster ? keySlot(key) : 0;
      let batch = batches.get(slot);
      if (!batch) batches.set(slot, (batch = new SlotBatch(this.#retentionArgs)));
      return batch;
    };
    for (const entry of entries) {
      const json = JSON.stringify(entry);
      const everythingKey = this.#inEverything.has(entry) ? null : this.keys.auditAll(this.keys.shardOf(entry.agentId));
      const agentKey = entry.agentId === null || this.#inAgent.has(entry) ? null : this.keys.auditAgent(entry.agentId);
      const together =
        everythingKey !== null && agentKey !== null && (!this.cluster || keySlot(everythingKey) === keySlot(agentKey));
      if (together) {
        const batch = batchFor(everythingKey);
        batch.args.push(batch.indexOf(everythingKey), batch.indexOf(agentKey), json);
        batch.everything.push(entry);
        batch.agent.push(entry);
        continue;
      }
      if (everythingKey !== null) {
        const batch = batchFor(everythingKey);
        batch.args.push(batch.indexOf(everythingKey), '0', json);
        batch.everything.push(entry);
      }
      if (agentKey !== null) {
        const batch = batchFor(agentKey);
        batch.args.push('0', batch.indexOf(agentKey), json);
        batch.agent.push(entry);
      }
    }
    return [...batches.values()];
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

  /**
   * Reads one stream newest first, from an (inclusive or exclusive) end. One
   * shard per read here; the view of everything reads every shard together,
   * so one shard's master counted away refuses the whole page at once.
   */
  #reader(key: string): ShardReader {
    return async (end, count) => {
      const [chunk] = await acrossMasters(this.client, [key], () =>
        this.client.xRevRange(key, end, '-', { COUNT: count }),
      );
      return (chunk ?? []).map(({ id, message }) => ({ id, record: JSON.parse(message.r as string) as AuditEntry }));
    };
  }
}
