import { countTokens } from '@tollgate/gateway-core/internal';
import type { RedisServer } from '@tollgate/gateway-core/testing';
import { once } from 'node:events';
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentAudit } from './support/audit.js';
import type { ControlledDownstream } from './support/controlled-downstream.js';
import { GatewayClient } from './support/gateway-client.js';
import { createAgentWithToken, openRawSession, rawCall, resultJson, waitUntilReady } from './support/mcp.js';
import { startPair, type Pair } from './support/pair.js';
import { eventually, startGateway, type RunningProcess } from './support/processes.js';
import { redisServerAvailable } from './support/redis-guard.js';

const available = redisServerAvailable('the graceful shutdown tests');

/** Sends SIGTERM and resolves with the exit code and how long the process took to go. */
async function terminate(gateway: RunningProcess): Promise<{ code: number | null; ms: number }> {
  const started = performance.now();
  const exited = once(gateway.child, 'exit') as Promise<[number | null]>;
  gateway.child.kill('SIGTERM');
  const [code] = await exited;
  return { code, ms: performance.now() - started };
}

/**
 * SIGTERM (issue 6): stop accepting, let calls in flight finish up to
 * Gw:Http:ShutdownDeadlineSeconds, settle their budgets, flush the audit,
 * exit 0. The state lives in Redis, so a second instance checks it.
 */
describe.runIf(available)('graceful shutdown on SIGTERM (dist/main.js × 2 on one Redis)', () => {
  let pair: Pair<ControlledDownstream, true>;
  let redis: RedisServer;
  let downstream: ControlledDownstream;
  let witness: RunningProcess;
  let api: GatewayClient;
  let admin: string;

  const NO_CACHE = { Gw__Cache__Enabled: 'false' };
  const gatewayOn = (env: Record<string, string> = {}) =>
    startGateway({ downstreamUrl: downstream.url, redisUrl: redis.url, env: { ...NO_CACHE, ...env } });

  beforeAll(async () => {
    pair = await startPair({ downstream: 'controlled', redis: true, gateway: { env: NO_CACHE } });
    ({ redis, downstream, gateway: witness, api } = pair);
    admin = await pair.adminToken();
  });
  afterAll(async () => {
    if (downstream) downstream.delayMs = 0;
    await pair?.stop();
  });

  it('finishes the call in flight with its result, settles its budget, flushes its audit record, exits 0', async () => {
    const leaving = await gatewayOn();
    try {
      await waitUntilReady(leaving.url);
      const agent = await createAgentWithToken(api, admin, {
        label: 'in flight at shutdown',
        dailyTokenBudget: 10_000,
      });
      const { sessionId } = await openRawSession(leaving.url, agent.token);
      downstream.delayMs = 1500;
      const inFlight = rawCall(
        leaving.url,
        agent.token,
        sessionId,
        'tools/call',
        { name: 'get_item', arguments: { id: 77 } },
        77,
      );
      await eventually(
        async () => downstream.hitsOn('/items/77'),
        (hits) => hits === 1,
        3000,
      );

      const exited = terminate(leaving);
      // No longer accepting: a new connection is refused while the call runs.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const late = await fetch(`${leaving.url}/health/live`).then(
        (response) => response.status,
        () => 'refused',
      );
      expect(late).toBe('refused');

      const reply = await inFlight;
      expect(reply.status).toBe(200);
      expect(resultJson(reply.message.result)).toMatchObject({ id: 77 });
      const { code, ms } = await exited;
      console.info(`graceful shutdown: exited ${code} after ${Math.round(ms)} ms with a call in flight`);
      expect(code).toBe(0);
      expect(leaving.output()).toMatch(/"msg":"stopped"/);

      // Settled and audited in the shared store, as the other instance sees it.
      const budget = (await api.request('GET', `/management/agents/${agent.agentId}/budget`, admin)).body;
      expect(budget.used).toBe(countTokens(reply.message.result.content[0].text));
      expect(budget.remaining).toBe(10_000 - budget.used); // no reservation left behind
      const calls = (await agentAudit(api, admin, agent.agentId)).filter((record) => record.kind === 'tool-call');
      expect(calls).toEqual([
        expect.objectContaining({ tool: 'get_item', outcome: 'ok', httpStatus: 200, tokensCharged: budget.used }),
      ]);

      // The session outlives the instance that opened it.
      downstream.delayMs = 0;
      expect(
        (await rawCall(witness.url, agent.token, sessionId, 'tools/call', { name: 'get_item', arguments: { id: 78 } }))
          .status,
      ).toBe(200);
    } finally {
      downstream.delayMs = 0;
      await leaving.stop('SIGKILL');
    }
  });

  // A connection whose call finishes during the drain goes idle later; main.ts sweeps idle
  // connections while draining, or a pooling client would hold the shutdown to its deadline.
  it('exits 0 soon after the last call even when its client keeps the connection open', async () => {
    const leaving = await gatewayOn({ Gw__Http__ShutdownDeadlineSeconds: '3' });
    const pooled = new Agent({ keepAlive: true });
    try {
      await waitUntilReady(leaving.url);
      const agent = await createAgentWithToken(api, admin, { label: 'pooled client', dailyTokenBudget: 10_000 });
      const { sessionId } = await openRawSession(leaving.url, agent.token);
      downstream.delayMs = 1000;
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: 5,
        method: 'tools/call',
        params: { name: 'get_item', arguments: { id: 55 } },
      });
      const inFlight = new Promise<number>((resolve, reject) => {
        const call = request(`${leaving.url}/mcp`, {
          method: 'POST',
          agent: pooled,
          headers: {
            'Content-Type': 'application/json',
            Accept: 'text/event-stream',
            Authorization: `Bearer ${agent.token}`,
            'Mcp-Session-Id': sessionId,
          },
        });
        call.on('response', (response) => response.resume().on('end', () => resolve(response.statusCode ?? 0)));
        call.on('error', reject);
        call.end(body);
      });
      await eventually(
        async () => downstream.hitsOn('/items/55'),
        (hits) => hits === 1,
        3000,
      );
      const exited = terminate(leaving);
      expect(await inFlight).toBe(200);
      const { code, ms } = await exited;
      expect(code).toBe(0);
      expect(ms).toBeLessThan(2000);
    } finally {
      pooled.destroy();
      downstream.delayMs = 0;
      await leaving.stop('SIGKILL');
    }
  });

  it('exits 1 at Gw:Http:ShutdownDeadlineSeconds when a call outlasts it; nothing is charged', async () => {
    const hurried = await gatewayOn({ Gw__Http__ShutdownDeadlineSeconds: '1' });
    try {
      await waitUntilReady(hurried.url);
      const agent = await createAgentWithToken(api, admin, { label: 'cut off at shutdown', dailyTokenBudget: 10_000 });
      const { sessionId } = await openRawSession(hurried.url, agent.token);
      downstream.delayMs = 5000;
      const inFlight = rawCall(
        hurried.url,
        agent.token,
        sessionId,
        'tools/call',
        { name: 'get_item', arguments: { id: 88 } },
        88,
      ).then(
        (reply) => reply.status,
        () => 'connection lost',
      );
      await eventually(
        async () => downstream.hitsOn('/items/88'),
        (hits) => hits === 1,
        3000,
      );

      const { code, ms } = await terminate(hurried);
      expect(code).toBe(1);
      expect(ms).toBeGreaterThan(900);
      expect(ms).toBeLessThan(3000);
      expect(await inFlight).toBe('connection lost');
      expect(hurried.output()).toMatch(/shutdown deadline passed/);

      // The reservation was never settled: nothing is charged (it lapses in the store by itself).
      const budget = (await api.request('GET', `/management/agents/${agent.agentId}/budget`, admin)).body;
      expect(budget.used).toBe(0);
    } finally {
      downstream.delayMs = 0;
      await hurried.stop('SIGKILL');
    }
  });
});
