import { describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../errors.js';
import { createMemoryStore } from '../store/memory/index.js';
import type { AgentRecord, BudgetLedger } from '../store/ports.js';
import { testAgent } from '../testing/tool-fixtures.js';
import { EarlyReservations } from './early-reservation.js';
import { SettlementQueue } from './settlement-queue.js';

const NOW = new Date('2025-05-01T12:00:00Z');

function agent(overrides: Partial<AgentRecord> = {}): AgentRecord {
  return testAgent({ agentId: 'agt_early', dailyTokenBudget: 1_000, ...overrides }, NOW);
}

function setup(ledger?: BudgetLedger) {
  const store = createMemoryStore();
  const budget = ledger ?? store.budget;
  const settlements = new SettlementQueue({ ledger: budget });
  const early = new EarlyReservations({ ledger: budget, settlements, clock: () => NOW });
  const usage = async () => {
    await settlements.settled('agt_early');
    return budget.usage('agt_early', NOW);
  };
  return { early, usage, budget };
}

describe('EarlyReservations', () => {
  it('starts nothing for an agent not seen yet', async () => {
    const { early, usage } = setup();
    expect(early.start('agt_early', 100)).toBeNull();
    expect(await usage()).toMatchObject({ reserved: 0 });
  });

  it('reserves at once for an agent seen before, and hands the grant to the budget step', async () => {
    const { early, usage } = setup();
    early.remember(agent());
    const ahead = early.start('agt_early', 100)!;
    expect(ahead).not.toBeNull();
    const result = await ahead.take(agent(), 100);
    expect(result).toMatchObject({ ok: true, reservation: { agentId: 'agt_early', granted: 100 } });
    expect(await usage()).toMatchObject({ used: 0, reserved: 100 });
    // Taken: abandoning afterwards gives nothing back.
    ahead.abandon();
    expect(await usage()).toMatchObject({ reserved: 100 });
  });

  it('gives the reservation back when the agent’s budget changed since it was sized', async () => {
    const { early, usage } = setup();
    early.remember(agent({ dailyTokenBudget: 1_000 }));
    const ahead = early.start('agt_early', 100)!;
    expect(await ahead.take(agent({ dailyTokenBudget: 50 }), 100)).toBeNull();
    expect(await usage()).toMatchObject({ used: 0, reserved: 0 });
  });

  it('gives the reservation back when the tool’s cap is not the one it was sized on', async () => {
    const { early, usage } = setup();
    early.remember(agent());
    const ahead = early.start('agt_early', 100)!;
    expect(await ahead.take(agent(), 200)).toBeNull();
    expect(await usage()).toMatchObject({ reserved: 0 });
  });

  it('abandon gives the tokens back when the call ends before its budget step', async () => {
    const { early, usage } = setup();
    early.remember(agent());
    early.start('agt_early', 300)!.abandon();
    expect(await usage()).toMatchObject({ used: 0, reserved: 0 });
  });

  it('reports a budget held by calls in flight, and then a spent one, like a late reservation would', async () => {
    const { early, budget } = setup();
    const full = await budget.reserve('agt_early', 1_000, 1_000, NOW);
    if (!full.ok) throw new Error('setup reservation failed');
    early.remember(agent());
    // Held: the budget step waits for the call in flight (BudgetAdmission), as it would after a late reservation.
    expect(await early.start('agt_early', 100)!.take(agent(), 100)).toEqual({
      ok: false,
      remaining: 0,
      reason: 'held',
    });
    await budget.settle(full.reservation, 1_000);
    expect(await early.start('agt_early', 100)!.take(agent(), 100)).toEqual({
      ok: false,
      remaining: 0,
      reason: 'exhausted',
    });
  });

  it('rethrows a store failure at the budget step, and abandoning one is harmless', async () => {
    const failing: BudgetLedger = {
      ...createMemoryStore().budget,
      reserve: async () => {
        throw new StoreUnavailableError('The store is unavailable: connection refused');
      },
    };
    const { early } = setup(failing);
    early.remember(agent());
    await expect(early.start('agt_early', 100)!.take(agent(), 100)).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(() => early.start('agt_early', 100)!.abandon()).not.toThrow();
  });
});
