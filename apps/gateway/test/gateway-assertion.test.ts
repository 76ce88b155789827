import { GatewayAssertionSigner, type AssertionSubject } from '@tollgate/gateway-core';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayClient } from './support/gateway-client.js';
import { connectSdkClient, createAgentWithToken, resultJson, type TestAgent } from './support/mcp.js';
import { startPair, type Pair } from './support/pair.js';
import { eventually, TEST_SIGNING_KEY, type RunningProcess } from './support/processes.js';

/** Three-second key periods, two-second assertions: several rotations fit in a few seconds. */
const ROTATION_MINUTES = 0.05;
const PERIOD_MS = 3_000;
const LIFETIME_SECONDS = 2;

/**
 * Issue 18 item 4 with the built processes: the sample downstream requires
 * the gateway's assertion on its tool routes (host-kit's requireGateway,
 * keys from the first gateway's /.well-known/jwks.json, fetched again after
 * a second). Two gateway instances share only the signing key.
 */
describe('the downstream trusts only the gateway', () => {
  let pair: Pair;
  let clients: Client[];
  let agents: TestAgent[];
  /** Assertions made as the gateway makes them: the same shared secret derives the same keys. */
  let forger: GatewayAssertionSigner;

  beforeAll(async () => {
    pair = await startPair({
      downstream: { guardedSample: { env: { GATEWAY_JWKS_CACHE_SECONDS: '1' } } },
      gateway: {
        env: {
          Gw__Assertion__RotationMinutes: String(ROTATION_MINUTES),
          Gw__Assertion__LifetimeSeconds: String(LIFETIME_SECONDS),
          Gw__Cache__Enabled: 'false',
        },
      },
      instances: 2,
    });
    // Each instance has its own in-memory store: an agent on each.
    agents = await Promise.all(
      pair.gateways.map(async (gateway) => {
        const api = new GatewayClient(gateway.url);
        return createAgentWithToken(api, await api.adminToken(), {
          label: 'assertion',
          dailyTokenBudget: 100_000,
          scopes: ['orders:read', 'customers:read'],
        });
      }),
    );
    clients = await Promise.all(
      pair.gateways.map((gateway, index) => connectSdkClient(gateway.url, agents[index]!.token)),
    );
    forger = new GatewayAssertionSigner({
      signingKey: TEST_SIGNING_KEY,
      rotationMinutes: ROTATION_MINUTES,
      lifetimeSeconds: LIFETIME_SECONDS,
    });
  }, 60_000);

  afterAll(async () => {
    await Promise.all((clients ?? []).map((client) => client.close()));
    await pair?.stop();
  });

  const downstream = () => pair.downstream as RunningProcess;
  const direct = (path: string, assertion?: string) =>
    fetch(
      `${downstream().url}${path}`,
      assertion === undefined ? {} : { headers: { 'Tollgate-Assertion': assertion } },
    ).then(async (response) => ({
      status: response.status,
      body: (await response.json()) as Record<string, unknown>,
    }));
  const claims = (overrides: Partial<AssertionSubject> = {}): AssertionSubject => ({
    audience: downstream().url,
    agentId: 'agt_direct',
    tool: 'get_order',
    scopes: ['orders:read'],
    callId: 'call-direct',
    ...overrides,
  });
  const callLines = () =>
    downstream()
      .output()
      .split('\n')
      .filter((line) => line.startsWith('gateway call:'));

  it('refuses a direct call to a tool route (either form), and leaves /gw/schema open', async () => {
    expect(await direct('/orders/1001')).toMatchObject({ status: 401, body: { error: 'gateway_assertion_required' } });
    expect(await direct('/inventory/KB-100')).toMatchObject({
      status: 401,
      body: { error: 'gateway_assertion_required' },
    });
    expect(await direct('/orders/1001', 'forged.assertion.value')).toMatchObject({
      status: 401,
      body: { error: 'invalid_gateway_assertion' },
    });
    expect((await fetch(`${downstream().url}/gw/schema`)).status).toBe(200);
  });

  it("passes a call through the gateway, and the sample's handler sees the agent, its scopes, the tool and the call id", async () => {
    const result = await clients[0]!.callTool({ name: 'get_order', arguments: { id: 1001 } });
    expect(result.isError ?? false).toBe(false);
    expect(resultJson(result)).toMatchObject({ id: 1001 });
    const line = await eventually(
      async () => callLines().find((candidate) => candidate.includes(`agent=${agents[0]!.agentId}`)),
      (found) => found !== undefined,
      5_000,
    );
    expect(line).toMatch(
      new RegExp(
        `^gateway call: tool=get_order agent=${agents[0]!.agentId} scopes=orders:read,customers:read call=[0-9a-f-]{36} status=200$`,
      ),
    );
  });

  it('publishes the same keys on every instance, publicly, with a short Cache-Control', async () => {
    const sets = await Promise.all(
      pair.gateways.map(async (gateway) => {
        const response = await fetch(`${gateway.url}/.well-known/jwks.json`);
        expect(response.status).toBe(200);
        expect(response.headers.get('cache-control')).toBe('public, max-age=1');
        return (await response.json()) as { keys: Array<{ kid: string; kty: string; crv: string; alg: string }> };
      }),
    );
    // Read in the same period by both, the sets are equal: no coordination but the shared secret.
    if (sets[0]!.keys.at(-1)!.kid === sets[1]!.keys.at(-1)!.kid) expect(sets[1]).toEqual(sets[0]);
    expect(sets[0]!.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256' });
    expect(sets[0]!.keys.length).toBeGreaterThanOrEqual(2);
  });

  it("accepts an assertion made with the gateway's keys once, and refuses it replayed, sent to another route, for another audience, expired or signed with another secret", async () => {
    const valid = forger.sign(claims());
    expect(await direct('/orders/1001', valid)).toMatchObject({ status: 200, body: { id: 1001 } });
    expect(await direct('/orders/1001', valid)).toMatchObject({
      status: 401,
      body: { error: 'invalid_gateway_assertion', message: 'The gateway assertion is invalid.' },
    });
    expect(await direct('/customers/1001', forger.sign(claims()))).toMatchObject({
      status: 401,
      body: { error: 'invalid_gateway_assertion' },
    });
    expect(await direct('/orders/1001', forger.sign(claims({ audience: 'http://billing.internal' })))).toMatchObject({
      status: 401,
    });
    const stranger = new GatewayAssertionSigner({
      signingKey: 'another-gateway-secret-that-is-32-bytes-long',
      rotationMinutes: ROTATION_MINUTES,
      lifetimeSeconds: LIFETIME_SECONDS,
    });
    expect(await direct('/orders/1001', stranger.sign(claims()))).toMatchObject({
      status: 401,
      body: { error: 'invalid_gateway_assertion' },
    });
    // Signed 10 s ago (a key still published), expired 8 s ago: beyond the 5 s tolerance.
    const earlier = new GatewayAssertionSigner({
      signingKey: TEST_SIGNING_KEY,
      rotationMinutes: ROTATION_MINUTES,
      lifetimeSeconds: LIFETIME_SECONDS,
      clock: () => new Date(Date.now() - 10_000),
    });
    expect(await direct('/orders/1001', earlier.sign(claims()))).toMatchObject({
      status: 401,
      body: { error: 'invalid_gateway_assertion', message: 'The gateway assertion has expired.' },
    });
  });

  it('keeps working across key rotations, through either instance, with no restart of either side', async () => {
    const kids = new Set<string>();
    const before = callLines().length;
    const started = Date.now();
    let calls = 0;
    // Past three period boundaries: each call signed with the key of its period.
    while (Date.now() - started < 3 * PERIOD_MS + 500) {
      const instance = calls % 2;
      const result = await clients[instance]!.callTool({ name: 'get_order', arguments: { id: 1001 + calls } });
      expect(result.isError ?? false, `call ${calls} through instance ${instance}`).toBe(false);
      const { keys } = (await (await fetch(`${pair.gateways[instance]!.url}/.well-known/jwks.json`)).json()) as {
        keys: Array<{ kid: string }>;
      };
      // The current key is the one before the next (the last published).
      kids.add(keys.at(-2)!.kid);
      calls++;
      await new Promise((resolve) => setTimeout(resolve, 700));
    }
    expect(kids.size).toBeGreaterThanOrEqual(3);
    await eventually(
      async () => callLines().length - before,
      (count) => count === calls,
      5_000,
    );
  });
});
