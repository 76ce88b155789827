import { countTokens } from '@tollgate/gateway-core/internal';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentAudit, countOutcomes } from './support/audit.js';
import type { ControlledDownstream } from './support/controlled-downstream.js';
import { GatewayClient } from './support/gateway-client.js';
import { createAgentWithToken, openRawSession, rawCall, type McpExchange, type TestAgent } from './support/mcp.js';
import { startPair, type Pair } from './support/pair.js';
import { eventually, type RunningProcess } from './support/processes.js';
import { HTTP_STATUS_DELIVERY } from './support/delivery.js';

const FAILURE_THRESHOLD = 3;
const BREAK_MS = 1000;
/** What "fails fast" means here, measured from the test process over loopback. */
const FAIL_FAST_MS = 100;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The circuit breaker and retries of contract 3.3 against a downstream the test
 * controls (dist/main.js, in-memory store): which failures count, how fast an
 * open circuit answers, the single half-open probe, and that nothing the
 * breaker refused reaches the downstream or the budget.
 */
describe('circuit breaker and retries (dist/main.js + a controlled downstream)', () => {
  let pair: Pair<ControlledDownstream>;
  let downstream: ControlledDownstream;
  let gateway: RunningProcess;
  let api: GatewayClient;
  let admin: string;

  beforeAll(async () => {
    pair = await startPair({
      downstream: 'controlled',
      gateway: {
        env: {
          ...HTTP_STATUS_DELIVERY,
          Gw__Breaker__FailureThreshold: String(FAILURE_THRESHOLD),
          Gw__Breaker__BreakSeconds: String(BREAK_MS / 1000),
          Gw__Downstream__RetryMinDelayMs: '10',
          Gw__Downstream__RetryMaxDelayMs: '30',
          // Every call must reach the downstream for the counts below to mean anything.
          Gw__Cache__Enabled: 'false',
        },
      },
    });
    ({ downstream, gateway, api } = pair);
    admin = await pair.adminToken();
  });
  afterAll(() => pair?.stop());

  async function newCaller(
    label: string,
    dailyTokenBudget = 100_000,
  ): Promise<{ agent: TestAgent; call: (name: string, args: object) => Promise<McpExchange & { ms: number }> }> {
    const agent = await createAgentWithToken(api, admin, { label, dailyTokenBudget });
    const { sessionId } = await openRawSession(gateway.url, agent.token);
    let id = 10;
    const call = async (name: string, args: object) => {
      const started = performance.now();
      const exchange = await rawCall(
        gateway.url,
        agent.token,
        sessionId,
        'tools/call',
        { name, arguments: args },
        id++,
      );
      return { ...exchange, ms: performance.now() - started };
    };
    return { agent, call };
  }

  const used = async (agentId: string): Promise<number> =>
    (await api.request('GET', `/management/agents/${agentId}/budget`, admin)).body.used;

  /** Waits out the break; the breaker moves to half-open on the next call. */
  const afterBreak = () => sleep(BREAK_MS + 150);

  it('retries a GET on 503 twice, never a POST, and counts a call once however many attempts it took', async () => {
    const { call } = await newCaller('retries');
    downstream.status = 503;
    try {
      const before = downstream.hits.length;
      const read = await call('get_item', { id: 1 });
      expect(read.status).toBe(502);
      expect(read.message.error).toMatchObject({ code: -32002, data: { downstreamStatus: 503 } });
      expect(downstream.hits.length - before).toBe(3);

      const write = await call('create_item', { name: 'x' });
      expect(write.status).toBe(502);
      expect(downstream.hits.length - before).toBe(4);
    } finally {
      downstream.status = 200;
    }
    // Two failed calls (six attempts would have opened it): still closed.
    expect((await call('get_item', { id: 1 })).status).toBe(200);
  });

  it('does not count 4xx answers as failures', async () => {
    const { call } = await newCaller('client errors');
    downstream.status = 404;
    try {
      const before = downstream.hits.length;
      for (let attempt = 0; attempt < FAILURE_THRESHOLD * 2; attempt++) {
        const reply = await call('get_item', { id: 2 });
        expect(reply.status).toBe(502);
        expect(reply.message.error.data).toMatchObject({ downstreamStatus: 404 });
      }
      // Not retried either: one request per call.
      expect(downstream.hits.length - before).toBe(FAILURE_THRESHOLD * 2);
    } finally {
      downstream.status = 200;
    }
    expect((await call('get_item', { id: 2 })).status).toBe(200);
  });

  it(`opens after ${FAILURE_THRESHOLD} failures in a row, then answers 503 / -32003 at once without the downstream or the budget`, async () => {
    const { agent, call } = await newCaller('breaker');
    expect((await call('get_item', { id: 3 })).status).toBe(200);
    downstream.status = 500;
    for (let failure = 0; failure < FAILURE_THRESHOLD; failure++)
      expect((await call('get_item', { id: 3 })).status).toBe(502);

    const usedBefore = await used(agent.agentId);
    const hitsBefore = downstream.hits.length;
    const refused = [];
    for (let attempt = 0; attempt < 10; attempt++) {
      refused.push(await (attempt % 2 === 0 ? call('get_item', { id: 3 }) : call('create_item', { name: 'x' })));
    }
    for (const reply of refused) {
      expect(reply.status).toBe(503);
      expect(reply.message.error.code).toBe(-32003);
    }
    const latencies = refused.map((reply) => reply.ms).sort((a, b) => a - b);
    const median = latencies[Math.floor(latencies.length / 2)]!;
    console.info(`breaker fail-fast latency: median ${median.toFixed(1)} ms, max ${latencies.at(-1)!.toFixed(1)} ms`);
    expect(median).toBeLessThan(FAIL_FAST_MS);
    expect(downstream.hits.length).toBe(hitsBefore);
    expect(await used(agent.agentId)).toBe(usedBefore);

    // After the break one probe goes through; its failure opens the circuit for another break.
    await afterBreak();
    expect((await call('get_item', { id: 3 })).status).toBe(502);
    expect(downstream.hits.length).toBe(hitsBefore + 1);
    expect((await call('get_item', { id: 3 })).status).toBe(503);
    expect(downstream.hits.length).toBe(hitsBefore + 1);

    // The next probe succeeds and closes it: every call goes through again.
    downstream.status = 200;
    await afterBreak();
    const probe = await call('get_item', { id: 3 });
    expect(probe.status).toBe(200);
    for (let attempt = 0; attempt < 3; attempt++) expect((await call('get_item', { id: 3 })).status).toBe(200);
    expect(downstream.hits.length).toBe(hitsBefore + 5);
    expect(await used(agent.agentId)).toBeGreaterThan(usedBefore);
  });

  it('lets exactly one probe through while half-open; the calls beside it fail fast', async () => {
    const { call } = await newCaller('half-open');
    downstream.status = 500;
    for (let failure = 0; failure < FAILURE_THRESHOLD; failure++) await call('get_item', { id: 4 });
    expect((await call('get_item', { id: 4 })).status).toBe(503);

    downstream.status = 200;
    downstream.delayMs = 400;
    try {
      await afterBreak();
      const hitsBefore = downstream.hits.length;
      const probe = call('get_item', { id: 4 });
      await sleep(50); // the probe is on its way
      const beside = await Promise.all(Array.from({ length: 5 }, () => call('get_item', { id: 4 })));
      for (const reply of beside) {
        expect(reply.status).toBe(503);
        expect(reply.ms).toBeLessThan(300); // not held until the probe's verdict
      }
      expect((await probe).status).toBe(200);
      expect(downstream.hits.length - hitsBefore).toBe(1);
    } finally {
      downstream.delayMs = 0;
    }
    expect((await call('get_item', { id: 4 })).status).toBe(200);
  });

  it('downstream killed mid-load: opens, fails fast, closes when it returns; every call audited, failures never charged', async () => {
    const { agent, call } = await newCaller('killed mid-load');
    const replies: Array<McpExchange & { ms: number; phase: string }> = [];
    let phase = 'up';
    let stop = false;
    let next = 0;
    const worker = async () => {
      while (!stop) {
        const id = next++;
        const reply = await call(id % 3 === 0 ? 'create_item' : 'get_item', id % 3 === 0 ? { name: `n${id}` } : { id });
        replies.push({ ...reply, phase });
        await sleep(5);
      }
    };
    const workers = Array.from({ length: 6 }, worker);

    await eventually(
      async () => replies.length,
      (count) => count >= 30,
      10_000,
    );
    phase = 'down';
    await downstream.kill();
    await eventually(
      async () => replies.filter((reply) => reply.status === 503).length,
      (count) => count >= 20,
      10_000,
    );
    phase = 'back';
    await downstream.start();
    // Closed again: a run of successes after the return.
    await eventually(
      async () => replies.filter((reply) => reply.phase === 'back').slice(-10),
      (last) => last.length === 10 && last.every((reply) => reply.status === 200),
      10_000,
    );
    stop = true;
    await Promise.all(workers);

    const statuses = new Set(replies.map((reply) => reply.status));
    expect([...statuses].sort()).toEqual([200, 502, 503]);
    const failFast = replies
      .filter((reply) => reply.status === 503)
      .map((reply) => reply.ms)
      .sort((a, b) => a - b);
    const median = failFast[Math.floor(failFast.length / 2)]!;
    console.info(
      `killed downstream: ${replies.length} calls, ${failFast.length} refused by the open circuit, median ${median.toFixed(1)} ms`,
    );
    expect(median).toBeLessThan(FAIL_FAST_MS);
    for (const reply of replies.filter((r) => r.status === 503)) expect(reply.message.error.code).toBe(-32003);

    // Every call is in the audit, once, with how it ended.
    const records = await eventually(
      () => agentAudit(api, admin, agent.agentId),
      (found) => found.filter((record) => record.kind === 'tool-call').length >= replies.length,
      10_000,
    );
    const calls = records.filter((record) => record.kind === 'tool-call');
    expect(calls).toHaveLength(replies.length);
    expect(countOutcomes(calls)).toEqual({
      ok: replies.filter((reply) => reply.status === 200).length,
      'downstream-error': replies.filter((reply) => reply.status === 502).length,
      'circuit-open': replies.filter((reply) => reply.status === 503).length,
    });
    for (const record of calls.filter((r) => r.outcome !== 'ok')) expect(record.tokensCharged).toBe(0);

    // Charged exactly the text of the successful answers, nothing for the rest.
    const charged = replies
      .filter((reply) => reply.status === 200)
      .reduce((sum, reply) => sum + countTokens(reply.message.result.content[0].text), 0);
    expect(await used(agent.agentId)).toBe(charged);
  });
});
