import type { UsageStore } from '../ports.js';
import { DAY_MS, dayOf, dayStart, emptyLatency, HOUR_MS, type UsageCell, type UsageRange } from '../usage-records.js';
import { acrossMasters, command, type RedisClient } from './connection.js';
import { WRITTEN_MARKER_MS } from './audit.js';
import type { Keys } from './keys.js';
import { LuaScript } from './scripts.js';

/** Separates the parts of a field name; dimension values never hold it (`fieldOf` replaces it). */
const SEP = '\u001f';

/*
 * One agent's day in one hash: every counter of a flush for that day is added
 * in one script, so a day's counters are written all or nothing, and its
 * expiry moves with them. KEYS: the day's hash, then the write's
 * written-marker (same slot) when it has an id. ARGV: expiry (epoch
 * seconds), the marker's lifetime (ms), then field, increment pairs.
 * The marker makes a write land once: one the gateway gave up waiting for
 * may still run (a frozen Redis wakes up), and its retry then adds nothing.
 */
const ADD = new LuaScript(`
if KEYS[2] and not redis.call('SET', KEYS[2], '1', 'NX', 'PX', ARGV[2]) then return 0 end
for i = 3, #ARGV, 2 do redis.call('HINCRBY', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('EXPIREAT', KEYS[1], ARGV[1])
return 1
`);

/**
 * How long a write's marker lives: longer than a retry comes after the write
 * (the recorder backs off to 5 s), as the audit trail's batch markers. One
 * small key per agent-day per flush.
 */
const USAGE_WRITTEN_MARKER_MS = WRITTEN_MARKER_MS;

/**
 * Usage counters in Redis: a hash per agent and UTC day (`Keys.usageDay`),
 * fields `<hour>␟<tool>␟<downstream>␟<outcome>␟<counter>` (counters `c`
 * calls, `t` tokens, `k` cache hits, `s` latency sum, `h<i>` histogram
 * buckets), and per day a set of the agents that have one, to read a range
 * without SCAN.
 */
export class RedisUsageStore implements UsageStore {
  /** `<day>␟<agent>` already in that day's agent set, so each instance adds an agent to a day once. */
  readonly #indexed = new Set<string>();

  constructor(
    private readonly client: RedisClient,
    private readonly keys: Keys,
    private readonly retentionDays: number,
  ) {}

  async add(cells: readonly UsageCell[], writeId?: string): Promise<void> {
    const byDay = groupByAgentDay(cells);
    // The index first: an add it refuses has written nothing. A retry of a partly written
    // add (one day's script failed) adds nothing again where the write id's marker is set.
    await this.#index([...byDay.values()].map((group) => group.cells[0]!));
    const results = await Promise.allSettled([...byDay.values()].map((group) => this.#addDay(group.cells, writeId)));
    const failed = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failed) throw failed.reason;
  }

  async read(range: UsageRange): Promise<UsageCell[]> {
    const days = daysOf(range);
    const agentsByDay =
      range.agentId !== undefined
        ? days.map(() => [range.agentId!])
        : await acrossMasters(
            this.client,
            days.map((day) => this.keys.usageAgents(day)),
            (key) => this.client.sMembers(key),
          );
    const reads = days.flatMap((day, i) => agentsByDay[i]!.map((agentId) => ({ day, agentId })));
    const hashes = await acrossMasters(
      this.client,
      reads.map(({ day, agentId }) => this.keys.usageDay(agentId, day)),
      (key) => this.client.hGetAll(key),
    );
    return reads.flatMap(({ day, agentId }, i) =>
      cellsOf(agentId, Date.parse(`${day}T00:00:00.000Z`), hashes[i]!).filter(
        (cell) => cell.hour >= range.from && cell.hour < range.to,
      ),
    );
  }

  async #index(firstOfEachDay: UsageCell[]): Promise<void> {
    const missing = firstOfEachDay
      .map((cell) => ({ day: dayOf(cell.hour), cell }))
      .filter(({ day, cell }) => !this.#indexed.has(`${day}${SEP}${cell.agentId}`));
    if (missing.length === 0) return;
    const keys = missing.map(({ day }) => this.keys.usageAgents(day));
    await command(
      this.client,
      () =>
        Promise.all(
          missing.flatMap(({ cell }, i) => [
            this.client.sAdd(keys[i]!, cell.agentId),
            this.client.expireAt(keys[i]!, this.#expiry(cell.hour)),
          ]),
        ),
      keys,
    );
    // A long-running instance forgets old days rather than growing the set forever.
    if (this.#indexed.size > 100_000) this.#indexed.clear();
    for (const { day, cell } of missing) this.#indexed.add(`${day}${SEP}${cell.agentId}`);
  }

  #addDay(cells: UsageCell[], writeId: string | undefined): Promise<unknown> {
    const first = cells[0]!;
    const day = dayOf(first.hour);
    const args: Array<string | number> = [this.#expiry(first.hour), USAGE_WRITTEN_MARKER_MS];
    for (const cell of cells) {
      const at =
        `${(cell.hour - dayStart(cell.hour)) / HOUR_MS}${SEP}${fieldOf(cell.tool)}${SEP}` +
        `${fieldOf(cell.downstream)}${SEP}${fieldOf(cell.outcome)}${SEP}`;
      args.push(`${at}c`, cell.calls, `${at}t`, cell.tokens, `${at}k`, cell.cacheHits, `${at}s`, cell.latencyMsSum);
      cell.latency.forEach((count, bucket) => {
        if (count > 0) args.push(`${at}h${bucket}`, count);
      });
    }
    const keys = [this.keys.usageDay(first.agentId, day)];
    if (writeId !== undefined) keys.push(this.keys.usageWritten(first.agentId, day, writeId));
    return command(this.client, () => ADD.run(this.client, keys, args), keys);
  }

  /**
   * The end of the cell's day plus retention, in epoch seconds: a day is kept for `retentionDays` days from its start.
   */
  #expiry(hour: number): number {
    return Math.ceil((dayStart(hour) + this.retentionDays * DAY_MS) / 1000);
  }
}

function groupByAgentDay(cells: readonly UsageCell[]): Map<string, { cells: UsageCell[] }> {
  const groups = new Map<string, { cells: UsageCell[] }>();
  for (const cell of cells) {
    const key = `${cell.agentId}${SEP}${dayOf(cell.hour)}`;
    const group = groups.get(key);
    if (group) group.cells.push(cell);
    else groups.set(key, { cells: [cell] });
  }
  return groups;
}

/** `YYYY-MM-DD` of every UTC day the range touches. */
function daysOf(range: UsageRange): string[] {
  const days: string[] = [];
  for (let day = dayStart(range.from); day < range.to; day += DAY_MS) days.push(dayOf(day));
  return days;
}

function fieldOf(value: string): string {
  return value.includes(SEP) ? value.replaceAll(SEP, ' ') : value;
}

/** The cells of one agent's day hash. */
function cellsOf(agentId: string, day: number, hash: Record<string, string>): UsageCell[] {
  const cells = new Map<string, UsageCell>();
  for (const [field, value] of Object.entries(hash)) {
    const parts = field.split(SEP);
    if (parts.length !== 5) continue;
    const [hourOfDay, tool, downstream, outcome, counter] = parts as [string, string, string, string, string];
    const identity = parts.slice(0, 4).join(SEP);
    let cell = cells.get(identity);
    if (!cell) {
      cell = {
        hour: day + Number(hourOfDay) * HOUR_MS,
        agentId,
        tool,
        downstream,
        outcome,
        calls: 0,
        tokens: 0,
        cacheHits: 0,
        latencyMsSum: 0,
        latency: emptyLatency(),
      };
      cells.set(identity, cell);
    }
    const n = Number(value);
    if (counter === 'c') cell.calls = n;
    else if (counter === 't') cell.tokens = n;
    else if (counter === 'k') cell.cacheHits = n;
    else if (counter === 's') cell.latencyMsSum = n;
    else if (counter.startsWith('h')) {
      const bucket = Number(counter.slice(1));
      if (bucket >= 0 && bucket < cell.latency.length) cell.latency[bucket] = n;
    }
  }
  return [...cells.values()];
}
