import { describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../errors.js';
import { MemoryBudgetLedger } from '../store/memory/budget.js';
import type { BudgetLedger, Reservation } from '../store/ports.js';
import { SettlementQueue } from './settlement-queue.js';

const NOW = new Date('2025-05-01T12:00:00Z');
const AGENT = 'agt_queue';

async function reserved(ledger: BudgetLedger, wanted = 100): Promise<Reservation> {
  const result = await ledger.reserve(AGENT, 1_000, wanted, NOW);
  if (!result.ok) throw new Error('test setup: reservation refused');
  return result.reservation;
}

/** The real in-memory ledger behind a switch that makes it fail like a store outage, counting writes. */
function flakyLedger(failures: { count: number; error?: () => Error }) {
  const inner = new MemoryBudgetLedger(5 * 60_000);
  const writes: string[] = [];
  const outage = () => {
    if (failures.count <= 0) return;
    failures.count -= 1;
    throw failures.error?.() ?? new StoreUnavailableError('The store is unavailable: connection refused');
  };
  const ledger: BudgetLedger = {
    reserve: (...args) => inner.reserve(...args),
    usage: (...args) => inner.usage(...args),
    reset: (...args) => inner.reset(...args),
    async settle(reservation, used) {
      writes.push('settle');
      outage();
      return inner.settle(reservation, used);
    },
    async release(reservation) {
      writes.push('release');
      outage();
      return inner.release(reservation);
    },
  };
  return { ledger, writes };
}

describe('SettlementQueue', () => {
  it('settles after the current turn, and a budget read through settled() sees the charge', async () => {
    const { ledger, writes } = flakyLedger({ count: 0 });
    const queue = new SettlementQueue({ ledger });
    const reservation = await reserved(ledger);

    queue.settle(reservation, 42);
    expect(writes).toEqual([]);
    expect(queue.pending).toBe(1);
    await queue.settled(AGENT);
    expect(await ledger.usage(AGENT, NOW)).toEqual({ day: '2025-05-01', used: 42, reserved: 0 });
    expect(queue.pending).toBe(0);
  });

  it('holds the reservation until the write lands, so nothing can be spent past the budget meanwhile', async () => {
    const { ledger } = flakyLedger({ count: 0 });
    const queue = new SettlementQueue({ ledger });
    const reservation = await reserved(ledger, 900);
    queue.settle(reservation, 10);
    // Before the settlement lands, only 100 of 1,000 tokens are free.
    const other = await ledger.reserve(AGENT, 1_000, 500, NOW);
    expect(other).toMatchObject({ ok: false, remaining: 100 });
    await queue.settled(AGENT);
    expect(await ledger.reserve(AGENT, 1_000, 500, NOW)).toMatchObject({ ok: true });
  });

  it('writes every settlement queued in one turn in one batch, in order', async () => {
    const { ledger, writes } = flakyLedger({ count: 0 });
    const queue = new SettlementQueue({ ledger });
    const reservations = await Promise.all(Array.from({ length: 5 }, () => reserved(ledger, 10)));
    reservations.forEach((reservation, i) => (i === 4 ? queue.release(reservation) : queue.settle(reservation, i + 1)));
    await new Promise((resolve) => setImmediate(resolve));
    // All five were issued by the one flush, before any of them could land.
    expect(writes).toEqual(['settle', 'settle', 'settle', 'settle', 'release']);
    await queue.settled(AGENT);
    expect(await ledger.usage(AGENT, NOW)).toMatchObject({ used: 1 + 2 + 3 + 4, reserved: 0 });
  });

  it('retries through a store outage and charges once', async () => {
    const failures = { count: 2 };
    const { ledger, writes } = flakyLedger(failures);
    const reported: boolean[] = [];
    const queue = new SettlementQueue({
      ledger,
      onError: (_error, _reservation, willRetry) => reported.push(willRetry),
    });
    const reservation = await reserved(ledger);

    queue.settle(reservation, 30);
    await queue.settled(AGENT);
    expect(writes).toEqual(['settle', 'settle', 'settle']);
    expect(reported).toEqual([true, true]);
    expect(await ledger.usage(AGENT, NOW)).toMatchObject({ used: 30, reserved: 0 });
  });

  it('gives a write up once the reservation would have lapsed, and says so', async () => {
    const { ledger } = flakyLedger({ count: Number.POSITIVE_INFINITY });
    const reported: boolean[] = [];
    const queue = new SettlementQueue({
      ledger,
      giveUpAfterMs: 250,
      onError: (_error, _reservation, willRetry) => reported.push(willRetry),
    });
    queue.settle(await reserved(ledger), 30);
    await queue.settled(AGENT);
    expect(queue.pending).toBe(0);
    expect(reported.at(-1)).toBe(false);
    expect(reported.slice(0, -1).every(Boolean)).toBe(true);
    expect((await ledger.usage(AGENT, NOW)).used).toBe(0);
  });

  it('does not retry an error that is not an outage', async () => {
    const { ledger, writes } = flakyLedger({ count: 1, error: () => new RangeError('used must be a whole number') });
    const reported: boolean[] = [];
    const queue = new SettlementQueue({
      ledger,
      onError: (_error, _reservation, willRetry) => reported.push(willRetry),
    });
    queue.settle(await reserved(ledger), 30);
    await queue.settled(AGENT);
    expect(writes).toEqual(['settle']);
    expect(reported).toEqual([false]);
  });

  it('drain writes a settlement waiting for its retry at once', async () => {
    const failures = { count: 1 };
    const { ledger } = flakyLedger(failures);
    // A retry a minute away: only drain can write it within the test.
    const queue = new SettlementQueue({ ledger, retryDelayMs: { first: 60_000, longest: 60_000 } });
    queue.settle(await reserved(ledger), 25);
    // Let the first attempt fail and its retry be scheduled.
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(failures.count).toBe(0);
    const outcome = await Promise.race([
      queue.drain().then(() => 'drained'),
      new Promise((resolve) => setTimeout(resolve, 5_000, 'still waiting')),
    ]);
    expect(outcome).toBe('drained');
    expect(queue.pending).toBe(0);
    expect((await ledger.usage(AGENT, NOW)).used).toBe(25);
  });

  it('a budget read waits for pending writes at most maxReadWaitMs', async () => {
    const { ledger } = flakyLedger({ count: Number.POSITIVE_INFINITY });
    const queue = new SettlementQueue({ ledger, maxReadWaitMs: 50 });
    queue.settle(await reserved(ledger), 30);
    const started = performance.now();
    await queue.settled(AGENT);
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(queue.pending).toBe(1);
    await queue.drain();
    expect(queue.pending).toBe(0);
  });

  it('settled() of an agent with nothing pending returns at once', async () => {
    const queue = new SettlementQueue({ ledger: new MemoryBudgetLedger(60_000) });
    await expect(queue.settled('agt_other')).resolves.toBeUndefined();
  });

  it('releaseWhenGranted: a budget read that follows waits for the grant and its release', async () => {
    const { ledger } = flakyLedger({ count: 0 });
    const queue = new SettlementQueue({ ledger });
    let grant!: (reservation: Reservation | null) => void;
    queue.releaseWhenGranted(AGENT, new Promise((resolve) => (grant = resolve)));
    const read = queue.settled(AGENT).then(() => ledger.usage(AGENT, NOW));
    grant(await reserved(ledger, 70));
    expect(await read).toMatchObject({ used: 0, reserved: 0 });
  });

  it('releaseWhenGranted of nothing granted writes nothing', async () => {
    const { ledger, writes } = flakyLedger({ count: 0 });
    const queue = new SettlementQueue({ ledger });
    queue.releaseWhenGranted(AGENT, Promise.resolve(null));
    queue.releaseWhenGranted(AGENT, Promise.reject(new StoreUnavailableError('The store is unavailable')));
    await queue.settled(AGENT);
    expect(writes).toEqual([]);
    expect(queue.pending).toBe(0);
  });

  it('after drain, a write that fails is given up at once instead of retried', async () => {
    const { ledger, writes } = flakyLedger({ count: Number.POSITIVE_INFINITY });
    const reported: boolean[] = [];
    const queue = new SettlementQueue({
      ledger,
      onError: (_error, _reservation, willRetry) => reported.push(willRetry),
    });
    await queue.drain();
    queue.settle(await reserved(ledger), 5);
    await queue.settled(AGENT);
    expect(writes).toEqual(['settle']);
    expect(reported).toEqual([false]);
    expect(queue.pending).toBe(0);
  });
});
