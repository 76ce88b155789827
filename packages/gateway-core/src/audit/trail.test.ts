import { AsyncLocalStorage } from 'node:async_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, vi } from 'vitest';
import { createMemoryStore } from '../store/memory/index.js';
import type { AuditLog } from '../store/ports.js';
import { argsDigest } from './digest.js';
import type { AuditEntry } from '../store/audit-records.js';
import { AuditTrail, type AuditEvent } from './trail.js';

const call = (overrides: Partial<AuditEvent> = {}): AuditEvent => ({
  kind: 'tool-call',
  outcome: 'ok',
  agentId: 'agt_a',
  tool: 'search',
  ...overrides,
});

/** The real in-memory audit log, with every append recorded. */
function countingLog(): { log: AuditLog; batches: number[] } {
  const { audit } = createMemoryStore();
  const batches: number[] = [];
  return {
    batches,
    log: {
      append: async (entries) => {
        batches.push(entries.length);
        await audit.append(entries);
      },
      query: (query) => audit.query(query),
    },
  };
}

/** An audit log that fails until `healthy` is set. */
function flakyLog(): { log: AuditLog; heal(): void } {
  const { audit } = createMemoryStore();
  let healthy = false;
  return {
    heal: () => (healthy = true),
    log: {
      append: async (entries) => {
        if (!healthy) throw new Error('store down');
        await audit.append(entries);
      },
      query: (query) => audit.query(query),
    },
  };
}

describe('AuditTrail', () => {
  it('queues on record and writes off the hot path, in batches, in order', async () => {
    const { log, batches } = countingLog();
    const trail = new AuditTrail({ log, batchSize: 40 });
    for (let i = 0; i < 100; i++) trail.record(call({ tokensCharged: i }));
    expect(batches).toEqual([]); // nothing written while the caller runs
    expect(trail.pending).toBe(100);

    await vi.waitFor(() => expect(trail.pending).toBe(0));
    expect(batches).toEqual([40, 40, 20]);
    const page = await log.query({ limit: 500 });
    expect(page.records.map((r) => r.tokensCharged)).toEqual(Array.from({ length: 100 }, (_, i) => 99 - i));
  });

  it('fills in the defaults: time, nulls, zero tokens, a short detail', async () => {
    const { log } = countingLog();
    const trail = new AuditTrail({ log, clock: () => new Date('2030-05-01T10:00:00.000Z') });
    trail.record({
      kind: 'management',
      outcome: 'agent.created',
      agentId: 'agt_b',
      actor: 'admin',
      detail: 'x'.repeat(500),
    });
    await trail.flush();
    const [record] = (await log.query({ limit: 1 })).records;
    expect(record).toEqual({
      id: expect.any(String),
      time: '2030-05-01T10:00:00.000Z',
      kind: 'management',
      agentId: 'agt_b',
      sessionId: null,
      tool: null,
      outcome: 'agent.created',
      httpStatus: null,
      jsonRpcCode: null,
      tokensCharged: 0,
      gatewayMs: null,
      downstreamMs: null,
      cacheTier: null,
      downstreamStatus: null,
      argsDigest: null,
      actor: 'admin',
      requestId: null,
      detail: 'x'.repeat(200),
    });
  });

  it('loses nothing on a graceful shutdown: flush writes every queued record', async () => {
    const { log } = countingLog();
    const trail = new AuditTrail({ log, batchSize: 7 });
    for (let i = 0; i < 250; i++) trail.record(call());
    await trail.flush();
    expect(trail.pending).toBe(0);
    expect((await log.query({ limit: 500 })).records).toHaveLength(250);
  });

  it('flush waits for a write already in flight and then writes what came after', async () => {
    const { audit } = createMemoryStore();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const log: AuditLog = { append: async (e) => (await gate, audit.append(e)), query: (q) => audit.query(q) };
    const trail = new AuditTrail({ log });
    trail.record(call({ tokensCharged: 1 }));
    await sleep(5); // the first batch is now in flight, held by the gate
    trail.record(call({ tokensCharged: 2 }));
    const flushed = trail.flush();
    release();
    await flushed;
    expect((await audit.query({ limit: 10 })).records.map((r) => r.tokensCharged)).toEqual([2, 1]);
  });

  it('never throws into the caller when the store fails; keeps, reports and retries the records', async () => {
    const { log, heal } = flakyLog();
    const errors: unknown[] = [];
    const trail = new AuditTrail({ log, onError: (e) => errors.push(e) });
    expect(() => trail.record(call())).not.toThrow();
    await trail.flush();
    expect(errors).toEqual([expect.objectContaining({ message: 'store down' })]);
    expect(trail.pending).toBe(1);

    heal();
    await vi.waitFor(() => expect(trail.pending).toBe(0), { timeout: 2_000 });
    expect((await log.query({ limit: 10 })).records).toHaveLength(1);
  });

  it('bounds the queue while the store is down, dropping the oldest and counting them', async () => {
    const { log, heal } = flakyLog();
    const trail = new AuditTrail({ log, maxQueue: 10 });
    for (let i = 0; i < 15; i++) trail.record(call({ tokensCharged: i }));
    expect(trail.dropped).toBe(5);
    expect(trail.pending).toBe(10);
    heal();
    await trail.flush();
    const kept = (await log.query({ limit: 50 })).records.map((r) => r.tokensCharged);
    expect(kept).toEqual([14, 13, 12, 11, 10, 9, 8, 7, 6, 5]);
  });

  it('survives a throwing log line and a throwing error handler', async () => {
    const { log } = countingLog();
    const trail = new AuditTrail({
      log,
      logLine: () => {
        throw new Error('log broken');
      },
      onError: () => {
        throw new Error('handler broken');
      },
    });
    trail.record(call());
    await trail.flush();
    expect((await log.query({ limit: 10 })).records).toHaveLength(1);
  });

  it('writes one log line per record, also when the store refuses it and it is retried', async () => {
    const { log, heal } = flakyLog();
    const lines: string[] = [];
    const trail = new AuditTrail({ log, logLine: (entry) => lines.push(JSON.stringify(entry)) });
    trail.record(call({ outcome: 'forbidden', httpStatus: 403, jsonRpcCode: -32003 }));
    await trail.flush();
    expect(lines).toHaveLength(1); // logged although the store is down
    heal();
    await trail.flush();
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      outcome: 'forbidden',
      httpStatus: 403,
      jsonRpcCode: -32003,
      agentId: 'agt_a',
    });
  });

  it('logs each record once through failed batches, records queued meanwhile and the oldest dropped', async () => {
    const { audit } = createMemoryStore();
    let healthy = false;
    let recordDuringWrite: (() => void) | null = null;
    const log: AuditLog = {
      append: async (entries) => {
        recordDuringWrite?.();
        recordDuringWrite = null;
        if (!healthy) throw new Error('store down');
        await audit.append(entries);
      },
      query: (query) => audit.query(query),
    };
    const logged: number[] = [];
    const trail = new AuditTrail({
      log,
      batchSize: 3,
      maxQueue: 6,
      logLine: (entry) => logged.push(entry.tokensCharged),
    });
    for (let i = 0; i < 4; i++) trail.record(call({ tokensCharged: i }));
    recordDuringWrite = () => [4, 5].forEach((i) => trail.record(call({ tokensCharged: i })));
    await trail.flush(); // 0-2 logged and refused; 4 and 5 queued while they were in flight
    expect(logged).toEqual([0, 1, 2]);
    await trail.flush(); // 0-2 refused again, and not logged again
    expect(logged).toEqual([0, 1, 2]);
    recordDuringWrite = () => [6, 7, 8].forEach((i) => trail.record(call({ tokensCharged: i }))); // 0-2 dropped
    await trail.flush();
    expect(trail.dropped).toBe(3);
    healthy = true;
    await trail.flush();
    expect(logged.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    const stored = (await log.query({ limit: 50 })).records.map((r) => r.tokensCharged);
    expect(stored.sort((a, b) => a - b)).toEqual([3, 4, 5, 6, 7, 8]);
  });

  it('keeps raw argument values out of every record and log line, even when a caller passes them', async () => {
    const secret = 'sk-live-7f3a9c2e-SECRET';
    const args = { customerEmail: 'jane.doe@example.com', apiKey: secret, limit: 3 };
    const store = createMemoryStore();
    const lines: string[] = [];
    const trail = new AuditTrail({
      log: store.audit,
      logLine: (entry: AuditEntry) => lines.push(JSON.stringify(entry)),
    });
    // A careless caller spreads the call's arguments into the event.
    trail.record({ ...call({ argsDigest: argsDigest(args) }), ...({ arguments: args, apiKey: secret } as object) });
    await trail.flush();

    const stored = JSON.stringify((await store.audit.query({ limit: 10 })).records);
    for (const text of [stored, ...lines]) {
      expect(text).toContain(argsDigest(args));
      expect(text).not.toContain(secret);
      expect(text).not.toContain('jane.doe@example.com');
    }
    expect(lines).toHaveLength(1);
  });

  it("names the request an event without one belongs to, as asked when recorded; an event's own id wins", async () => {
    const { log } = countingLog();
    let current: string | undefined = 'req-1';
    const trail = new AuditTrail({ log, requestId: () => current });
    trail.record(call({ tokensCharged: 1 }));
    current = undefined;
    trail.record(call({ tokensCharged: 2 }));
    current = 'req-3';
    trail.record(call({ tokensCharged: 3, requestId: 'own' }));
    trail.record(call({ tokensCharged: 4, requestId: null }));
    await trail.flush();
    const records = (await log.query({ limit: 10 })).records.reverse();
    expect(records.map((record) => record.requestId)).toEqual(['req-1', null, 'own', null]);
  });

  it('writes its batches outside the async context of the request whose record started them (issue 25, finding 16)', async () => {
    const { log } = countingLog();
    const context = new AsyncLocalStorage<string>();
    const seen: (string | undefined)[] = [];
    const trail = new AuditTrail({ log, logLine: () => seen.push(context.getStore()) });
    context.run('req-1', () => trail.record(call({ requestId: 'req-1' })));
    context.run('req-2', () => trail.record(call({ requestId: 'req-2' })));
    await vi.waitFor(() => expect(seen).toHaveLength(2));
    expect(seen).toEqual([undefined, undefined]);
  });

  it('stamps an event that brings no time with the current time, to the millisecond', async () => {
    const { log } = countingLog();
    const trail = new AuditTrail({ log });
    const before = Date.now();
    trail.record(call());
    trail.record(call({ time: '2030-05-01T10:00:00.000Z' }));
    const after = Date.now();
    await trail.flush();
    const [stamped, given] = (await log.query({ limit: 10 })).records.reverse();
    expect(stamped!.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Date.parse(stamped!.time)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(stamped!.time)).toBeLessThanOrEqual(after);
    expect(given!.time).toBe('2030-05-01T10:00:00.000Z');
  });
});
