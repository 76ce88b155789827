import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControlledDownstream } from './support/controlled-downstream.js';
import { createAgentWithToken, openRawSession, type TestAgent } from './support/mcp.js';
import { startPair, type Pair } from './support/pair.js';
import { eventually, freePort, gatewayEnv, GATEWAY_MAIN, runToExit } from './support/processes.js';
import { rawRequest, type RawReply } from './support/raw-http.js';
import { redisServerAvailable } from './support/redis-guard.js';

const available = redisServerAvailable('the multi-core tests');

/** Calls per round: each on its own connection, so round-robin hands them to every worker. */
const CALLS = 16;

interface LogLine {
  msg: string;
  worker?: number;
  role?: string;
  pid?: number;
  code?: number | null;
  method?: string;
  path?: string;
  status?: number;
}

/** The JSON log lines of the primary and its workers (they share one stdout). */
function logLines(output: string): LogLine[] {
  return output.split('\n').flatMap((line) => {
    if (!line.startsWith('{')) return [];
    try {
      return [JSON.parse(line) as LogLine];
    } catch {
      return [];
    }
  });
}

/** Worker ids with a line from the worker itself matching `message`. */
const workersSaying = (lines: LogLine[], message: RegExp) => new Set(lines.filter((line) => line.role === undefined && line.worker !== undefined && message.test(line.msg)).map((line) => line.worker!));

/** Pid of each worker, from the primary's `worker N started (pid P)` lines. */
const pidsOf = (lines: LogLine[]) => new Map(lines.filter((line) => line.role === 'primary' && /^worker \d+ started/.test(line.msg)).map((line) => [line.worker!, line.pid!]));

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * `Gw:Http:Workers=2` (issue 19 item 4): the built gateway as a primary with
 * two worker processes on one port, on a real Redis. Calls spread over both
 * workers within one MCP session, the primary's metrics port merges both
 * workers' metrics, a killed worker is replaced, and SIGTERM drains the
 * calls in flight on every worker before the primary exits 0.
 */
describe.runIf(available)('Gw:Http:Workers=2 (dist/main.js as primary + 2 workers, real Redis)', () => {
  let pair: Pair<ControlledDownstream, true>;
  let metricsUrl: string;
  let agent: TestAgent;
  let sessionId: string;

  /** One tools/call on a fresh connection; the session lives in Redis, so any worker serves it. */
  const call = (id: number): Promise<RawReply> =>
    rawRequest(`${pair.url}/mcp`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        Authorization: `Bearer ${agent.token}`,
        'Mcp-Session-Id': sessionId,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'get_item', arguments: { id } } }),
    });

  /** Runs CALLS calls at once and returns the ids of the workers whose access log shows them. */
  async function callRound(): Promise<Map<number, number>> {
    const mark = pair.gateway.output().length;
    const replies = await Promise.all(Array.from({ length: CALLS }, (_, i) => call(i + 1)));
    for (const reply of replies) {
      expect(reply.status).toBe(200);
      expect(reply.body).toContain('widget');
      expect(reply.body).not.toContain('isError');
    }
    // The access line is written as the answer goes out: wait until every call's line is in.
    const served = await eventually(
      async () => logLines(pair.gateway.output().slice(mark)).filter((line) => line.msg === 'request' && line.path === '/mcp' && line.method === 'POST'),
      (lines) => lines.length >= CALLS,
      5_000,
    );
    const perWorker = new Map<number, number>();
    for (const line of served) perWorker.set(line.worker!, (perWorker.get(line.worker!) ?? 0) + 1);
    return perWorker;
  }

  /** Waits until each of these workers has its tools and its model (until then /mcp answers 503 there). */
  const untilServing = (workers: number[]) =>
    eventually(
      async () => {
        const lines = logLines(pair.gateway.output());
        const loaded = workersSaying(lines, /^loaded \d+ tools/);
        const checked = workersSaying(lines, /^embedding model checked/);
        return workers.every((worker) => loaded.has(worker) && checked.has(worker));
      },
      (ready) => ready,
      30_000,
    );

  beforeAll(async () => {
    const metricsPort = await freePort();
    metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    pair = await startPair({
      downstream: 'controlled',
      redis: true,
      gateway: { env: { Gw__Http__Workers: '2', Gw__Metrics__Port: String(metricsPort), Gw__Cache__Enabled: 'false' } },
    });
    await untilServing([1, 2]);
    agent = await createAgentWithToken(pair.api, await pair.adminToken(), { label: 'multi-core', dailyTokenBudget: 1_000_000 });
    ({ sessionId } = await openRawSession(pair.url, agent.token, '2025-06-18'));
  }, 45_000);
  afterAll(() => pair?.stop());

  it('spreads calls of one session over both workers; the metrics port counts every worker', async () => {
    const perWorker = await callRound();
    expect([...perWorker.keys()].sort()).toEqual([1, 2]);
    expect(pair.downstream.hitsOn('/items/1')).toBeGreaterThanOrEqual(1);

    // Scraped from the primary: both workers' counters summed.
    const metrics = await eventually(
      () => fetch(metricsUrl).then(async (response) => ({ status: response.status, text: await response.text() })),
      (scrape) => scrape.status === 200 && /tollgate_tool_calls_total\{tool="get_item",outcome="ok"\} (\d+)/.exec(scrape.text)?.[1] === String(CALLS),
      5_000,
    );
    expect(metrics.text).toContain('tollgate_breaker_state 0');
  });

  it('replaces a killed worker; the replacement serves calls alongside the survivor', async () => {
    const before = pidsOf(logLines(pair.gateway.output()));
    const victim = before.get(1)!;
    expect(isAlive(victim)).toBe(true);
    process.kill(victim, 'SIGKILL');

    const replacement = await eventually(
      async () => [...pidsOf(logLines(pair.gateway.output())).keys()].find((worker) => !before.has(worker)),
      (worker) => worker !== undefined,
      10_000,
    );
    const lines = logLines(pair.gateway.output());
    expect(lines.some((line) => line.role === 'primary' && line.worker === 1 && /^worker 1 exited unexpectedly; starting a replacement in \d+ ms$/.test(line.msg))).toBe(true);
    expect(isAlive(victim)).toBe(false);
    await untilServing([replacement!, 2]);

    const perWorker = await callRound();
    expect([...perWorker.keys()].sort()).toEqual([2, replacement!].sort());
  }, 45_000);

  it('SIGTERM: calls in flight on every worker finish, each worker stops, the primary exits 0', async () => {
    const workerPids = [...pidsOf(logLines(pair.gateway.output())).values()].filter(isAlive);
    expect(workerPids).toHaveLength(2);
    pair.downstream.delayMs = 1_500;
    const hitsBefore = pair.downstream.hits.length;
    const mark = pair.gateway.output().length;
    const inFlight = Promise.all(Array.from({ length: 4 }, (_, i) => call(100 + i)));
    await eventually(async () => pair.downstream.hits.length - hitsBefore, (hits) => hits === 4, 5_000);

    const exitCode = pair.gateway.stop('SIGTERM');
    const replies = await inFlight;
    expect(replies.map((reply) => reply.status)).toEqual([200, 200, 200, 200]);
    expect(await exitCode).toBe(0);

    const lines = logLines(pair.gateway.output().slice(mark));
    // The four calls were on both workers, and both drained them.
    expect(new Set(lines.filter((line) => line.msg === 'request' && line.path === '/mcp').map((line) => line.worker)).size).toBe(2);
    const stopped = lines.filter((line) => line.role === 'primary' && /^worker \d+ stopped$/.test(line.msg));
    expect(stopped.map((line) => line.code)).toEqual([0, 0]);
    expect(lines.at(-1)).toMatchObject({ role: 'primary', msg: 'stopped' });
    expect(workerPids.filter(isAlive)).toEqual([]);
  }, 30_000);
});

describe('Gw:Http:Workers on the in-memory store', () => {
  it('refuses to start: each worker would keep its own sessions and budgets', async () => {
    const result = await runToExit(GATEWAY_MAIN, gatewayEnv({ downstreamUrl: 'http://127.0.0.1:9', env: { Gw__Http__Workers: '2' } }));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('tollgate: refusing to start: Gw:Http:Workers: is 2, but more than one worker needs a shared store: set ConnectionStrings:Store');
    expect(result.stdout).not.toContain('started (pid');
  });
});
