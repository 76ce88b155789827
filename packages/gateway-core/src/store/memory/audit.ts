import {
  auditIdMs,
  checkAuditQuery,
  compareAuditIds,
  matchesAuditQuery,
  type AuditEntry,
  type AuditPage,
  type AuditQuery,
  type AuditRecord,
} from '../audit-records.js';
import type { AuditRetention } from '../options.js';
import type { AuditLog } from '../ports.js';

/**
 * The trail in arrays, oldest first: one per agent and one of everything,
 * trimmed on every append by count and by age. Ids look like Redis stream ids
 * (`<ms>-<seq>`), so cursors behave the same on both adapters.
 */
export class MemoryAuditLog implements AuditLog {
  readonly #all: AuditRecord[] = [];
  readonly #byAgent = new Map<string, AuditRecord[]>();
  readonly #retention: Required<AuditRetention>;
  readonly #clock: () => number;
  #lastMs = 0;
  #sequence = 0;

  constructor(retention: Required<AuditRetention>, clock: () => number) {
    this.#retention = retention;
    this.#clock = clock;
  }

  async append(entries: readonly AuditEntry[]): Promise<void> {
    for (const entry of entries) {
      const record: AuditRecord = { ...structuredClone(entry), id: this.#nextId() };
      this.#all.push(record);
      if (record.agentId !== null) this.#agentRecords(record.agentId).push(record);
    }
    this.#trim();
  }

  async query(query: AuditQuery): Promise<AuditPage> {
    checkAuditQuery(query);
    const records = query.agentId === undefined ? this.#all : (this.#byAgent.get(query.agentId) ?? []);
    const page: AuditRecord[] = [];
    const oldestShownMs = this.#clock() - this.#retention.maxAgeMs;
    for (let i = records.length - 1; i >= 0 && page.length <= query.limit; i--) {
      const record = records[i]!;
      if (auditIdMs(record.id) < oldestShownMs) break;
      if (query.before !== undefined && compareAuditIds(record.id, query.before) >= 0) continue;
      if (matchesAuditQuery(record, query)) page.push(record);
    }
    const hasMore = page.length > query.limit;
    const shown = page.slice(0, query.limit).map((record) => structuredClone(record));
    return { records: shown, nextCursor: hasMore ? shown.at(-1)!.id : null };
  }

  /** Like XADD `*`: the clock in milliseconds, a sequence within one millisecond, never going back. */
  #nextId(): string {
    const now = this.#clock();
    if (now > this.#lastMs) {
      this.#lastMs = now;
      this.#sequence = 0;
    } else {
      this.#sequence += 1;
    }
    return `${this.#lastMs}-${this.#sequence}`;
  }

  #agentRecords(agentId: string): AuditRecord[] {
    let records = this.#byAgent.get(agentId);
    if (!records) this.#byAgent.set(agentId, (records = []));
    return records;
  }

  #trim(): void {
    const oldestKeptMs = this.#clock() - this.#retention.maxAgeMs;
    trim(this.#all, this.#retention.maxRecords, oldestKeptMs);
    for (const [agentId, records] of this.#byAgent) {
      trim(records, this.#retention.maxRecordsPerAgent, oldestKeptMs);
      if (records.length === 0) this.#byAgent.delete(agentId);
    }
  }
}

function trim(records: AuditRecord[], maxRecords: number, oldestKeptMs: number): void {
  let drop = Math.max(records.length - maxRecords, 0);
  while (drop < records.length && auditIdMs(records[drop]!.id) < oldestKeptMs) drop++;
  if (drop > 0) records.splice(0, drop);
}
