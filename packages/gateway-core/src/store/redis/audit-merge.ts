import { auditIdMs, type AuditEntry, type AuditPage, type AuditRecord } from '../audit-records.js';

/**
 * One page of the audit trail read from several streams at once, newest
 * first: the shards of the stream of everything on a cluster (one stream
 * on one server, or an agent's own).
 *
 * Ids stay unique and ordered across shards: the record with stream id
 * `<ms>-<seq>` in shard j of N is shown as `<ms>-<seq × N + j>`. Within a
 * shard that keeps the stream's order; across shards, records are ordered by
 * their shard's clock, then by sequence and shard. With one stream (N = 1) an
 * id is the stream id itself. A cursor (`before`) is such an id, and each
 * shard is read from the last of its own ids below it.
 */

/** Reads one stream newest first: at most `count` entries from `end` (an id, or `(id` to exclude it). */
export type ShardReader = (end: string, count: number) => Promise<Array<{ id: string; record: AuditEntry }>>;

export interface PageLimits {
  limit: number;
  /** Records read before a page returns short, with a cursor to go on from. */
  scanLimit: number;
  /** Entries read from a stream at a time once the first read is spent. */
  chunk: number;
  /** Records older than this (epoch ms) are not shown. */
  oldestShownMs: number;
}

interface Buffered {
  ms: bigint;
  seq: bigint;
  record: AuditRecord;
}

/** The largest sequence Redis allows in a stream id. */
const MAX_SEQ = 18_446_744_073_709_551_615n;

class ShardCursor {
  readonly buffer: Buffered[] = [];
  #end: string | null;

  constructor(
    private readonly read: ShardReader,
    private readonly shard: bigint,
    private readonly shards: bigint,
    before: string | undefined,
  ) {
    this.#end = before === undefined ? '+' : this.#endBelow(before);
  }

  /** Reads more when the buffer is empty and the stream may hold more. */
  async fill(count: number): Promise<void> {
    if (this.buffer.length > 0 || this.#end === null) return;
    const chunk = await this.read(this.#end, count);
    for (const { id, record } of chunk) this.buffer.push(this.#shown(id, record));
    this.#end = chunk.length < count ? null : `(${chunk.at(-1)!.id}`;
  }

  #shown(streamId: string, entry: AuditEntry): Buffered {
    const [ms, seq] = parseId(streamId);
    const shownSeq = seq * this.shards + this.shard;
    const id = this.shards === 1n ? streamId : `${ms}-${shownSeq}`;
    return { ms, seq: shownSeq, record: { ...entry, id } };
  }

  /** The inclusive end in this shard for "every shown id below `before`", or null when there is none. */
  #endBelow(before: string): string | null {
    const [ms, shownSeq] = parseId(before);
    const above = shownSeq - this.shard;
    // Stream sequences s with s × N + shard < shownSeq: s ≤ ceil((shownSeq − shard) / N) − 1.
    const maxSeq = above <= 0n ? -1n : (above + this.shards - 1n) / this.shards - 1n;
    if (maxSeq >= 0n) return `${ms}-${maxSeq}`;
    return ms > 0n ? `${ms - 1n}-${MAX_SEQ}` : null;
  }
}

export async function mergedAuditPage(
  readers: ShardReader[],
  shards: number,
  before: string | undefined,
  limits: PageLimits,
  keep: (record: AuditRecord) => boolean,
): Promise<AuditPage> {
  const cursors = readers.map((read, shard) => new ShardCursor(read, BigInt(shard), BigInt(shards), before));
  const page: AuditRecord[] = [];
  let count = Math.min(limits.chunk, limits.limit + 1);
  for (let scanned = 0; ; ) {
    await Promise.all(cursors.map((cursor) => cursor.fill(count)));
    const newest = newestHead(cursors);
    if (newest === null) return { records: page, nextCursor: null };
    const { record } = newest.buffer.shift()!;
    // Every shard's next record is older still: nothing more to show.
    if (auditIdMs(record.id) < limits.oldestShownMs) return { records: page.slice(0, limits.limit), nextCursor: null };
    if (keep(record)) {
      page.push(record);
      if (page.length > limits.limit)
        return { records: page.slice(0, limits.limit), nextCursor: page[limits.limit - 1]!.id };
    }
    // Scan limit reached: what was found, and where to go on from.
    if (++scanned >= limits.scanLimit) return { records: page, nextCursor: record.id };
    count = limits.chunk;
  }
}

function newestHead(cursors: ShardCursor[]): ShardCursor | null {
  let newest: ShardCursor | null = null;
  for (const cursor of cursors) {
    const head = cursor.buffer[0];
    if (head === undefined) continue;
    const best = newest?.buffer[0];
    if (!best || head.ms > best.ms || (head.ms === best.ms && head.seq > best.seq)) newest = cursor;
  }
  return newest;
}

function parseId(id: string): [bigint, bigint] {
  const dash = id.indexOf('-');
  return [BigInt(id.slice(0, dash)), BigInt(id.slice(dash + 1))];
}
