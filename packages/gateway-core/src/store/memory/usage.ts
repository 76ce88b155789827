import type { UsageStore } from '../ports.js';
import { addCell, cellKey, copyCell, DAY_MS, dayStart, type UsageCell, type UsageRange } from '../usage-records.js';

/** Hours are dropped at most this often: a sweep walks every cell. */
const SWEEP_EVERY_MS = 60_000;

/** Usage counters in one map keyed by cell identity; whole days past retention are swept on a later add. */
export class MemoryUsageStore implements UsageStore {
  readonly #cells = new Map<string, UsageCell>();
  #sweptAt = 0;

  constructor(
    private readonly retentionDays: number,
    private readonly clock: () => number,
  ) {}

  /** No write id is needed here: a write to memory never lands after its caller gave up on it. */
  async add(cells: readonly UsageCell[]): Promise<void> {
    const oldest = this.#oldestKept();
    for (const cell of cells) {
      if (cell.hour < oldest) continue;
      const key = cellKey(cell);
      const held = this.#cells.get(key);
      if (held) addCell(held, cell);
      else this.#cells.set(key, copyCell(cell));
    }
    this.#sweep(oldest);
  }

  async read(range: UsageRange): Promise<UsageCell[]> {
    const from = Math.max(range.from, this.#oldestKept());
    const found: UsageCell[] = [];
    for (const cell of this.#cells.values()) {
      if (cell.hour < from || cell.hour >= range.to) continue;
      if (range.agentId !== undefined && cell.agentId !== range.agentId) continue;
      found.push(copyCell(cell));
    }
    return found;
  }

  /** Start of the oldest day kept: today and the `retentionDays - 1` before it. */
  #oldestKept(): number {
    return dayStart(this.clock()) - (this.retentionDays - 1) * DAY_MS;
  }

  #sweep(oldest: number): void {
    const now = this.clock();
    if (now - this.#sweptAt < SWEEP_EVERY_MS) return;
    this.#sweptAt = now;
    for (const [key, cell] of this.#cells) if (cell.hour < oldest) this.#cells.delete(key);
  }
}
