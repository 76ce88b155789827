import { describe, expect, it } from 'vitest';
import { compareAuditIds, type AuditEntry } from '../audit-records.js';
import { mergedAuditPage, type ShardReader } from './audit-merge.js';

/** A stream held in memory, read as XREVRANGE reads it: newest first from an inclusive or `(`exclusive end. */
function stream(ids: string[]): ShardReader {
  const entries = ids.map((id) => ({ id, record: { tool: id } as unknown as AuditEntry }));
  return async (end, count) => {
    const exclusive = end.startsWith('(');
    const bound = exclusive ? end.slice(1) : end;
    const below = entries.filter(
      ({ id }) => bound === '+' || (exclusive ? compareAuditIds(id, bound) < 0 : compareAuditIds(id, bound) <= 0),
    );
    return below.reverse().slice(0, count);
  };
}

const limits = { limit: 3, scanLimit: 1_000, chunk: 2, oldestShownMs: 0 };
const all = () => true;

describe('mergedAuditPage', () => {
  // Three shards whose streams hold ids in the same milliseconds.
  const shards = [stream(['5-0', '5-1', '7-0']), stream(['5-0', '6-0']), stream(['5-0', '5-1', '5-2', '8-0'])];

  it('shows ids unique across shards, newest first, each shard in its own order', async () => {
    const page = await mergedAuditPage(shards, 3, undefined, { ...limits, limit: 20 }, all);
    expect(page.records.map((r) => r.id)).toEqual(['8-2', '7-0', '6-1', '5-8', '5-5', '5-3', '5-2', '5-1', '5-0']);
    expect(page.records.map((r) => r.tool)).toEqual(['8-0', '7-0', '6-0', '5-2', '5-1', '5-1', '5-0', '5-0', '5-0']);
    expect(page.nextCursor).toBeNull();
  });

  it('pages through every record once with the cursors it hands out', async () => {
    const seen: string[] = [];
    let before: string | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const page = await mergedAuditPage(shards, 3, before, limits, all);
      seen.push(...page.records.map((r) => r.id));
      if (!page.nextCursor) break;
      before = page.nextCursor;
    }
    expect(seen).toEqual(['8-2', '7-0', '6-1', '5-8', '5-5', '5-3', '5-2', '5-1', '5-0']);
  });

  it('reads below any cursor of the right shape, down to the smallest', async () => {
    expect(
      (await mergedAuditPage(shards, 3, '9999999999999999-9999999999999999', { ...limits, limit: 20 }, all)).records,
    ).toHaveLength(9);
    expect((await mergedAuditPage(shards, 3, '5-3', { ...limits, limit: 20 }, all)).records.map((r) => r.id)).toEqual([
      '5-2',
      '5-1',
      '5-0',
    ]);
    expect(await mergedAuditPage(shards, 3, '0-1', limits, all)).toEqual({ records: [], nextCursor: null });
  });

  it('keeps the stream ids as they are with one shard', async () => {
    const page = await mergedAuditPage([stream(['1-0', '1-1', '2-0'])], 1, '2-0', limits, all);
    expect(page.records.map((r) => r.id)).toEqual(['1-1', '1-0']);
  });
});
