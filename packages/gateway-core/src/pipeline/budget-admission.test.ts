import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { BudgetExhaustedError, ClientGoneError, DownstreamCallError } from '../errors.js';
import type { Forwarder } from '../forward/forwarder.js';
import { createMemoryStore } from '../store/memory/index.js';
import type { BudgetLedger, Reservation, ReserveResult } from '../store/ports.js';
import { getCustomer, testAgent } from '../testing/tool-fixtures.js';
import { buildToolRegistry } from '../tools/registry.js';
import { BudgetAdmission, type AdmitRequest, type BudgetAdmissionOptions } from './budget-admission.js';
import { callTool } from './tool-call.js';
import type { ToolCallDeps } from './tool-call-deps.js';

const NOW = new Date('2025-05-01T12:00:00Z');
const AGENT = 'agt_test';
const clock = () => NOW;

function setup(options: Partial<BudgetAdmissionOptions> = {}) {
  const ledger = createMemoryStore().budget;
  const admission = new BudgetAdmission({ ledger, ...options });
  const request = (overrides: Partial<AdmitRequest> = {}): AdmitRequest => ({
    agentId: AGENT,
    dailyBudget: 100,
    wanted: 100,
    clock,
    ...overrides,
  });
  const grant = async (wanted: number, dailyBudget = 100): Promise<Reservation> => {
    const reserved = await ledger.reserve(AGENT, dailyBudget, wanted, NOW);
    if (!reserved.ok) throw new Error('setup reservation failed');
    return reserved.reservation;
  };
  return { ledger, admission, request, grant, usage: () => ledger.usage(AGENT, NOW) };
}

/** Whether the promise has settled after the pending turns of the event loop. */
async function isSettled(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await sleep(5);
  return settled;
}

/** The ledger as another instance sees it: reserves and settles, but hears nothing of them. */
function withoutWakeUps(ledger: BudgetLedger): BudgetLedger {
  return {
    reserve: (...args) => ledger.reserve(...args),
    settle: (...args) => ledger.settle(...args),
    release: (...args) => ledger.release(...args),
    usage: (...args) => ledger.usage(...args),
    reset: (...args) => ledger.reset(...args),
  };
}

describe('BudgetAdmission', () => {
  it('grants at once when the budget has room, with one reservation', async () => {
    const { admission, request, usage } = setup();
    const admitted = await admission.admit(request({ wanted: 30 }));
    expect(admitted).toMatchObject({ ok: true, reservation: { granted: 30 } });
    expect(await usage()).toMatchObject({ reserved: 30 });
  });

  it('waits while calls in flight hold the budget, then gets what a settlement frees', async () => {
    const { admission, ledger, request, grant, usage } = setup();
    const inFlight = await grant(100);
    const waiting = admission.admit(request());
    expect(await isSettled(waiting)).toBe(false);
    expect(admission.waiting).toBe(1);

    await ledger.settle(inFlight, 12);
    const admitted = await waiting;
    expect(admitted).toMatchObject({ ok: true, reservation: { granted: 88 } });
    expect(await usage()).toEqual({ day: '2025-05-01', used: 12, reserved: 88 });
    expect(admission.waiting).toBe(0);
  });

  it('is woken by a local settlement, without waiting for the next poll', async () => {
    const { admission, ledger, request, grant } = setup({ pollDelayMs: { first: 5_000, longest: 5_000 } });
    const inFlight = await grant(100);
    const waiting = admission.admit(request());
    await sleep(5);
    const started = performance.now();
    await ledger.release(inFlight);
    expect(await waiting).toMatchObject({ ok: true, reservation: { granted: 100 } });
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it("polls for settlements it cannot hear of (another instance's)", async () => {
    const ledger = createMemoryStore().budget;
    const admission = new BudgetAdmission({ ledger: withoutWakeUps(ledger), pollDelayMs: { first: 5, longest: 20 } });
    const inFlight = await ledger.reserve(AGENT, 100, 100, NOW);
    if (!inFlight.ok) throw new Error('setup reservation failed');
    const waiting = admission.admit({ agentId: AGENT, dailyBudget: 100, wanted: 50, clock });
    await sleep(30);
    await ledger.settle(inFlight.reservation, 40);
    expect(await waiting).toMatchObject({ ok: true, reservation: { granted: 50 } });
  });

  it('refuses at once, without waiting, when the settled tokens reach the budget', async () => {
    const { admission, ledger, request, grant } = setup();
    await ledger.settle(await grant(100), 100);
    const started = performance.now();
    expect(await admission.admit(request({ wanted: 1 }))).toEqual({ ok: false, reason: 'exhausted' });
    expect(performance.now() - started).toBeLessThan(100);
    expect(admission.waiting).toBe(0);
  });

  it('refuses a waiting call once the settlements leave nothing, in the order the calls came', async () => {
    const { admission, ledger, request, grant } = setup();
    const inFlight = await grant(100);
    const waiting = [admission.admit(request()), admission.admit(request())];
    await sleep(5);
    await ledger.settle(inFlight, 100);
    expect(await Promise.all(waiting)).toEqual([
      { ok: false, reason: 'exhausted' },
      { ok: false, reason: 'exhausted' },
    ]);
  });

  it('refuses as held when nothing comes free within the bound', async () => {
    const { admission, request, grant, usage } = setup({ maxWaitMs: 60 });
    await grant(100);
    const started = performance.now();
    const refused = await admission.admit(request());
    expect(refused).toMatchObject({ ok: false, reason: 'held' });
    if (refused.ok || refused.reason !== 'held') throw new Error('unreachable');
    expect(refused.waitedMs).toBeGreaterThanOrEqual(55);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(await usage()).toMatchObject({ reserved: 100 });
    expect(admission.waiting).toBe(0);
  });

  it("ends the wait at once when the caller's signal fires", async () => {
    const { admission, request, grant } = setup();
    await grant(100);
    const caller = new AbortController();
    const waiting = admission.admit(request({ signal: caller.signal }));
    await sleep(5);
    caller.abort();
    expect(await waiting).toEqual({ ok: false, reason: 'cancelled' });
    expect(admission.waiting).toBe(0);

    const gone = new AbortController();
    gone.abort();
    expect(await admission.admit(request({ signal: gone.signal }))).toEqual({ ok: false, reason: 'cancelled' });
  });

  it('admits waiting calls first come, first served, and a new call queues behind them', async () => {
    const { admission, ledger, request, grant } = setup();
    const inFlight = await grant(100);
    const order: string[] = [];
    const admit = (name: string, wanted: number) =>
      admission.admit(request({ wanted })).then((admitted) => (order.push(name), admitted));
    const first = admit('first', 30);
    await sleep(5);
    const second = admit('second', 30);
    await sleep(5);
    // 30 come free: enough for one of them.
    await ledger.settle(inFlight, 70);
    const late = admit('late', 30);
    expect(await first).toMatchObject({ ok: true, reservation: { granted: 30 } });
    expect(await isSettled(second)).toBe(false);
    expect(await isSettled(late)).toBe(false);
    expect(order).toEqual(['first']);
  });

  it('waits the same way when an early reservation found the budget held', async () => {
    const { admission, ledger, request, grant } = setup();
    const inFlight = await grant(100);
    const early: ReserveResult = await ledger.reserve(AGENT, 100, 100, NOW, { minimum: 1 });
    expect(early).toMatchObject({ ok: false, reason: 'held' });
    const waiting = admission.admit(request({ first: early }));
    expect(await isSettled(waiting)).toBe(false);
    await ledger.settle(inFlight, 50);
    expect(await waiting).toMatchObject({ ok: true, reservation: { granted: 50 } });
  });

  it('takes an early refusal as exhausted without asking the ledger again', async () => {
    let asked = 0;
    const ledger = createMemoryStore().budget;
    const counting: BudgetLedger = {
      ...withoutWakeUps(ledger),
      reserve: (...args) => (asked++, ledger.reserve(...args)),
    };
    const admission = new BudgetAdmission({ ledger: counting });
    const admitted = await admission.admit({
      agentId: AGENT,
      dailyBudget: 100,
      wanted: 10,
      clock,
      first: { ok: false, remaining: 0, reason: 'exhausted' },
    });
    expect(admitted).toEqual({ ok: false, reason: 'exhausted' });
    expect(asked).toBe(0);
  });

  it('refuses as held at once past the waiters allowed per agent', async () => {
    const { admission, request, grant } = setup({ maxWaitersPerAgent: 2, maxWaitMs: 200 });
    await grant(100);
    const waiting = [admission.admit(request()), admission.admit(request())];
    expect(await admission.admit(request())).toEqual({ ok: false, reason: 'held', waitedMs: 0 });
    expect(await admission.admit(request({ agentId: 'agt_other' }))).toMatchObject({ ok: true });
    await Promise.all(waiting);
  });

  it('gives back a grant that came after its caller left', async () => {
    const ledger = createMemoryStore().budget;
    let holdReserve: Promise<void> | null = null;
    const slow: BudgetLedger = {
      ...withoutWakeUps(ledger),
      reserve: async (...args) => {
        const answer = await ledger.reserve(...args);
        if (holdReserve) await holdReserve;
        return answer;
      },
    };
    const admission = new BudgetAdmission({ ledger: slow, pollDelayMs: { first: 5, longest: 5 } });
    const inFlight = await ledger.reserve(AGENT, 100, 100, NOW);
    if (!inFlight.ok) throw new Error('setup reservation failed');
    const caller = new AbortController();
    const waiting = admission.admit({ agentId: AGENT, dailyBudget: 100, wanted: 100, clock, signal: caller.signal });
    await sleep(5);
    let answer!: () => void;
    holdReserve = new Promise((resolve) => (answer = resolve));
    await ledger.release(inFlight.reservation);
    await sleep(20); // the next poll's reservation is granted, and its answer held back
    caller.abort();
    expect(await waiting).toEqual({ ok: false, reason: 'cancelled' });
    answer();
    await sleep(10);
    expect(await ledger.usage(AGENT, NOW)).toMatchObject({ reserved: 0 });
  });

  it('never grants past the budget, and refuses only once the settled tokens fill it, at 200 concurrent calls', async () => {
    const { admission, ledger, usage } = setup({ pollDelayMs: { first: 1, longest: 5 } });
    const budget = 500;
    const calls = Array.from({ length: 200 }, async (_, index) => {
      const admitted = await admission.admit({ agentId: AGENT, dailyBudget: budget, wanted: 200, clock });
      if (!admitted.ok) return { index, refused: admitted.reason, spentThen: (await usage()).used };
      // Answers far below the cap, settled a little later, as a downstream call would.
      await sleep(index % 7);
      await ledger.settle(admitted.reservation, Math.min(3 + (index % 11), admitted.reservation.granted));
      return { index, refused: null, spentThen: 0 };
    });
    const outcomes = await Promise.all(calls);
    const refused = outcomes.filter((outcome) => outcome.refused !== null);
    const final = await usage();
    expect(final.reserved).toBe(0);
    expect(final.used).toBeLessThanOrEqual(budget);
    expect(refused.length).toBeGreaterThan(0);
    for (const outcome of refused) {
      expect(outcome.refused).toBe('exhausted');
      expect(outcome.spentThen).toBe(budget);
    }
    expect(final.used).toBe(budget);
  });

  it('refuses options it cannot run with', () => {
    const ledger = createMemoryStore().budget;
    expect(() => new BudgetAdmission({ ledger, maxWaitMs: -1 })).toThrow(/maxWaitMs/);
    expect(() => new BudgetAdmission({ ledger, pollDelayMs: { first: 0, longest: 10 } })).toThrow(/pollDelayMs/);
    expect(() => new BudgetAdmission({ ledger, pollDelayMs: { first: 20, longest: 10 } })).toThrow(/pollDelayMs/);
    expect(() => new BudgetAdmission({ ledger, maxWaitersPerAgent: 1.5 })).toThrow(/maxWaitersPerAgent/);
  });
});

describe('the budget step of a tools/call', () => {
  const { registry } = buildToolRegistry([getCustomer]);
  const agent = testAgent({ dailyTokenBudget: 100 }, NOW);

  function pipeline(admissionOptions: Partial<BudgetAdmissionOptions> = {}) {
    const store = createMemoryStore();
    const forwarder: Forwarder = {
      forward: async () => ({ status: 200, headers: {}, body: { id: '7' }, durationMs: 1 }),
    };
    const admission = new BudgetAdmission({ ledger: store.budget, ...admissionOptions });
    const deps: ToolCallDeps = { registry: () => registry, budget: store.budget, admission, forwarder, clock };
    return { deps, budget: store.budget };
  }
  const call = (deps: ToolCallDeps, extra: { signal?: AbortSignal } = {}) =>
    callTool(
      deps,
      { agent, tokenScopes: [], protocolVersion: '2025-06-18', ...extra },
      { name: 'getCustomer', arguments: { id: '7' } },
    );

  it('says the budget is held by calls in flight when the wait runs out', async () => {
    const { deps, budget } = pipeline({ maxWaitMs: 30 });
    await budget.reserve(AGENT, 100, 100, NOW);
    const report = await call(deps);
    expect(report.ok).toBe(false);
    if (report.ok) return;
    expect(report.error).toBeInstanceOf(BudgetExhaustedError);
    expect((report.error as Error).message).toMatch(/held by calls in flight \(waited \d+ ms/);
  });

  it('says the budget is exhausted once it is spent', async () => {
    const { deps, budget } = pipeline();
    const spent = await budget.reserve(AGENT, 100, 100, NOW);
    if (!spent.ok) throw new Error('setup reservation failed');
    await budget.settle(spent.reservation, 100);
    const report = await call(deps);
    expect(report.ok).toBe(false);
    if (report.ok) return;
    expect((report.error as Error).message).toMatch(/tokens is exhausted/);
  });

  it('a caller that goes away while it waits ends as client-gone, charged nothing', async () => {
    const { deps, budget } = pipeline();
    await budget.reserve(AGENT, 100, 100, NOW);
    const caller = new AbortController();
    const report = call(deps, { signal: caller.signal });
    await sleep(5);
    caller.abort();
    const ended = await report;
    expect(ended).toMatchObject({ ok: false, tokensCharged: 0 });
    if (ended.ok) return;
    expect(ended.error).toBeInstanceOf(ClientGoneError);
    expect((ended.error as ClientGoneError).cause).toBeInstanceOf(DownstreamCallError);
    expect(await budget.usage(AGENT, NOW)).toMatchObject({ used: 0, reserved: 100 });
  });
});
