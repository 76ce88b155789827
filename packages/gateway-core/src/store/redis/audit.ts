import { auditIdMs, checkAuditQuery, matchesAuditQuery, type AuditEntry, type AuditPage, type AuditQuery, type AuditRecord } from '../audit-records.js';
import type { AuditRetention } from '../options.js';
import type { AuditLog } from '../ports.js';
import { command, type RedisClient } from './connection.js';
import type { Keys } from './keys.js';
import { LuaScript } from './scripts.js';

/*
 * Two Redis Streams hold each record: the stream of everything and the
 * agent's own. One script adds to both, so the agent stream reuses the id
 * the global stream assigned (ids only grow, on any number of instances) and
 * one cursor works in either. Both are capped by count (MAXLEN ~) and by age
 * (MINID ~, from the server's clock), and expire when idle past the age cap.
 * A record is one field `r`: its JSON without the id.
 */

// One script per batch: each record goes to the global stream and, with the id the
// global stream assigned, to its agent's; then each stream touched is trimmed by age
// and its expiry moved once, not once per record.
// KEYS: global stream, then the agent streams of the batch.
// ARGV: maxRecords, maxRecordsPerAgent, maxAgeMs, then per record: agent stream index (0 = none), json.
const APPEND = new LuaScript(`
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local min_id = string.format('%d-0', math.max(now - tonumber(ARGV[3]), 0))
for i = 4, #ARGV, 2 do
  local agent_stream, json = tonumber(ARGV[i]), ARGV[i + 1]
  local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', 'r', json)
  if agent_stream > 0 then
    redis.call('XADD', KEYS[1 + agent_stream], 'MAXLEN', '~', ARGV[2], id, 'r', json)
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

export class RedisAuditLog implements AuditLog {
  constructor(
    private readonly client: RedisClient,
    private readonly keys: Keys,
    private readonly retention: Required<AuditRetention>,
  ) {}

  async append(entries: readonly AuditEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const { maxRecords, maxRecordsPerAgent, maxAgeMs } = this.retention;
    const keys = [this.keys.auditAll()];
    const agentStreams = new Map<string, number>();
    const perRecord = entries.flatMap((entry) => [String(this.#agentStream(entry.agentId, keys, agentStreams)), JSON.stringify(entry)]);
    await command(this.client, () => APPEND.run(this.client, keys, [maxRecords, maxRecordsPerAgent, maxAgeMs, ...perRecord]));
  }

  /** The index in `keys` of the agent's stream (added on first use), or 0 for a record of no agent. */
  #agentStream(agentId: string | null, keys: string[], indexes: Map<string, number>): number {
    if (agentId === null) return 0;
    let index = indexes.get(agentId);
    if (index === undefined) {
      keys.push(this.keys.auditAgent(agentId));
      indexes.set(agentId, (index = keys.length - 1));
    }
    return index;
  }

  async query(query: AuditQuery): Promise<AuditPage> {
    checkAuditQuery(query);
    const key = query.agentId === undefined ? this.keys.auditAll() : this.keys.auditAgent(query.agentId);
    const page: AuditRecord[] = [];
    // Trimming by age is approximate; reading is exact: nothing older than the cap is shown.
    const oldestShownMs = Date.now() - this.retention.maxAgeMs;
    let end = query.before === undefined ? '+' : `(${query.before}`;
    for (let scanned = 0; scanned < AUDIT_SCAN_LIMIT; ) {
      const chunk = await command(this.client, () => this.client.xRevRange(key, end, '-', { COUNT: CHUNK }));
      for (const { id, message } of chunk ?? []) {
        if (auditIdMs(id) < oldestShownMs) return { records: page.slice(0, query.limit), nextCursor: null };
        const record = { ...(JSON.parse(message.r as string) as AuditEntry), id };
        if (!matchesAuditQuery(record, query)) continue;
        page.push(record);
        if (page.length > query.limit) return { records: page.slice(0, query.limit), nextCursor: page[query.limit - 1]!.id };
      }
      if (!chunk || chunk.length < CHUNK) return { records: page, nextCursor: null };
      scanned += chunk.length;
      end = `(${chunk.at(-1)!.id}`;
    }
    // Scan limit reached: what was found, and where to go on from.
    return { records: page, nextCursor: end.slice(1) };
  }
}
