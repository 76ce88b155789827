import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../errors.js';
import { auditEntry } from '../../testing/audit-fixtures.js';
import { UsageRecorder } from '../../usage/usage-recorder.js';
import { eventually } from '../../testing/eventually.js';
import { isRedisServerAvailable, startRedisServer, type RedisServer } from '../../testing/redis-server.js';
import type { GatewayStore } from '../ports.js';
import { createRedisStore } from './index.js';

/**
 * A frozen Redis (SIGSTOP) keeps every command sent to it and runs them when
 * it wakes up, long after the gateway gave up waiting (issue 25, findings 5
 * and 14): what was abandoned must still end right once it lands.
 */
describe.runIf(isRedisServerAvailable())('Redis writes that land after the gateway gave up on them', () => {
  let server: RedisServer;
  let store: GatewayStore;
  const noon = new Date('2026-03-01T12:00:00Z');

  beforeAll(async () => {
    server = await startRedisServer();
    store = await createRedisStore(server.url, { keyPrefix: `test:${randomUUID()}:`, commandTimeoutMs: 300 });
  });
  afterAll(async () => {
    server?.resume();
    await store?.close();
    await server?.stop();
  });

  /** Runs `frozen` while the server is stopped, then thaws it. */
  async function whileFrozen<T>(frozen: () => Promise<T>): Promise<T> {
    server.pause();
    try {
      return await frozen();
    } finally {
      server.resume();
    }
  }

  it('gives back a reservation whose answer never came, though it lands after the give-up', async () => {
    const held = await store.budget.reserve('agt_kept', 1_000, 100, noon);
    expect(held.ok).toBe(true);
    const late = await whileFrozen(() =>
      store.budget.reserve('agt_kept', 1_000, 300, noon).catch((error: unknown) => error),
    );
    expect(late).toBeInstanceOf(StoreUnavailableError);
    // The late RESERVE runs first (it was sent first), then the give-back: only the answered reservation is held.
    await eventually(async () =>
      expect(await store.budget.usage('agt_kept', noon)).toEqual({ day: '2026-03-01', used: 0, reserved: 100 }),
    );
    if (held.ok) await store.budget.settle(held.reservation, 40);
    expect(await store.budget.reserve('agt_kept', 1_000, 960, noon)).toMatchObject({ ok: true, remaining: 0 });
  });

  it('stores an audit batch once though its first write lands late and the trail writes it again', async () => {
    const agentId = `agt_${randomUUID().slice(0, 8)}`;
    const batch = [auditEntry({ agentId, requestId: 'one' }), auditEntry({ agentId, requestId: 'two' })];
    const failed = await whileFrozen(() => store.audit.append(batch).catch((error: unknown) => error));
    expect(failed).toBeInstanceOf(StoreUnavailableError);
    // The trail hands the same entries again, with one more behind them.
    await store.audit.append([...batch, auditEntry({ agentId, requestId: 'three' })]);
    const { records } = await store.audit.query({ agentId, limit: 10 });
    expect(records.map((record) => record.requestId)).toEqual(['three', 'two', 'one']);
    const { records: everything } = await store.audit.query({ limit: 500 });
    expect(everything.filter((record) => record.agentId === agentId)).toHaveLength(3);
  });
  it('counts a usage flush once though its first write lands late and the recorder writes it again (issue 29)', async () => {
    const agentId = `agt_${randomUUID().slice(0, 8)}`;
    const errors: unknown[] = [];
    // Now, not noon of a past day: a day past retention expires as it is written.
    const now = Date.now();
    const recorder = new UsageRecorder({
      store: store.usage,
      onError: (error) => errors.push(error),
      clock: () => now,
    });
    const call = {
      kind: 'tool-call',
      outcome: 'ok',
      agentId,
      tool: 'shop_list',
      downstream: 'shop',
      tokensCharged: 10,
      time: new Date(now).toISOString(),
    } as const;
    // A first flush that lands: the agent's day is in the day's index, so the frozen flush sends its counters at once.
    recorder.record(call);
    await recorder.flush();
    for (let i = 0; i < 3; i++) recorder.record(call);
    await whileFrozen(() => recorder.flush());
    expect(errors).toHaveLength(1);
    // One more call while the first flush waits for its retry: it counts too, once.
    recorder.record(call);
    await recorder.flush();
    expect(recorder.pending).toBe(0);
    const cells = await store.usage.read({ from: now - 3_600_000, to: now + 3_600_000, agentId });
    expect(cells.reduce((sum, cell) => sum + cell.calls, 0)).toBe(5);
    expect(cells.reduce((sum, cell) => sum + cell.tokens, 0)).toBe(50);
  });
});
