import type { RedisServer } from '@tollgate/gateway-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayClient } from './support/gateway-client.js';
import { mcpInitialize } from './support/mcp-probe.js';
import { startPair, type Pair } from './support/pair.js';
import { eventually, type RunningProcess } from './support/processes.js';
import { redisServerAvailable } from './support/redis-guard.js';

const available = redisServerAvailable('the readiness tests against a Redis outage');

interface Probe {
  status: number;
  body: any;
}

async function probe(url: string): Promise<Probe> {
  const response = await fetch(url);
  return { status: response.status, body: await response.json() };
}

const HEALTHY = {
  status: 'Healthy',
  components: { cacheStore: { status: 'Healthy' }, embeddingModel: { status: 'Healthy' } },
};

/** Contract 2.6 and 4.4: the store is checked for real, and the gateway follows it down and back up by itself. */
describe.runIf(available)('readiness through a Redis outage (no gateway restart)', () => {
  let pair: Pair<RunningProcess, true>;
  let redis: RedisServer;
  let gateway: RunningProcess;
  let client: GatewayClient;

  beforeAll(async () => {
    // Not waited for: the first test watches the gateway become ready.
    pair = await startPair({ redis: true, ready: false });
    ({ redis, gateway, api: client } = pair);
  });
  afterAll(() => pair?.stop());

  it('goes Unhealthy (503, cacheStore described) when Redis stops and Healthy again when it returns', async () => {
    const ready = await eventually(
      () => probe(`${gateway.url}/health/ready`),
      (reply) => reply.status === 200,
    );
    expect(ready.body).toEqual(HEALTHY);
    const admin = await client.adminToken();
    const { agentId } = await client.createAgent(admin, { label: 'Before the outage', dailyTokenBudget: 1000 });
    expect((await mcpInitialize(gateway.url, await client.agentToken(admin, agentId))).status).toBe(200);
    const tokenBefore = await client.agentToken(admin, agentId);

    await redis.stop();

    const down = await eventually(
      () => probe(`${gateway.url}/health/ready`),
      (reply) => reply.status === 503,
      10_000,
    );
    expect(down.body).toEqual({
      status: 'Unhealthy',
      components: {
        cacheStore: { status: 'Unhealthy', description: expect.any(String) },
        embeddingModel: { status: 'Healthy' },
      },
    });
    expect(down.body.components.cacheStore.description).toMatch(/unavailable/i);
    expect(down.body.components.cacheStore.description).not.toContain(redis.url);

    // Alive throughout, and nothing fails open: agents and admins are told to retry, never let through.
    expect((await probe(`${gateway.url}/health/live`)).status).toBe(200);
    const mcp = await mcpInitialize(gateway.url, tokenBefore);
    expect(mcp.status).toBe(503);
    expect(mcp.message).toMatchObject({ error: { code: -32003 } });
    const management = await client.request('GET', '/management/agents', admin);
    expect(management.status).toBe(503);
    expect(management.headers.get('Content-Type')).toMatch(/^application\/problem\+json/);

    await redis.restart();

    const back = await eventually(
      () => probe(`${gateway.url}/health/ready`),
      (reply) => reply.status === 200,
      15_000,
    );
    expect(back.body).toEqual(HEALTHY);
    expect(gateway.child.exitCode).toBeNull();

    // The restarted Redis is empty: the gateway works against it without a restart of its own.
    expect((await client.request('GET', '/management/agents', admin)).body).toEqual([]);
    const { agentId: afterId } = await client.createAgent(admin, { label: 'After the outage', dailyTokenBudget: 1000 });
    expect((await mcpInitialize(gateway.url, await client.agentToken(admin, afterId))).status).toBe(200);
  });

  it('logs the outage without the store address', () => {
    expect(gateway.output()).toMatch(/store unavailable/);
    expect(gateway.output()).not.toContain(redis.url);
  });
});
