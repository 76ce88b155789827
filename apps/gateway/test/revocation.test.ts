import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayClient } from './support/gateway-client.js';
import { mcpInitialize, mcpRequest, type McpReply } from './support/mcp-probe.js';
import { startPair, type Pair } from './support/pair.js';
import type { RunningProcess } from './support/processes.js';
import { redisServerAvailable } from './support/redis-guard.js';

const available = redisServerAvailable('the token revocation tests across gateway instances');

function expectRefused(reply: McpReply): void {
  expect(reply.status, JSON.stringify(reply.message)).toBe(401);
  expect(reply.message).toMatchObject({ jsonrpc: '2.0', error: { code: -32001 } });
}

/**
 * Contract 3.1 and 5 rule 7: deactivating an agent rejects its tokens at once,
 * on every gateway that shares the store, here two gateway processes on one
 * real redis-server.
 */
describe.runIf(available)('token revocation across two gateways on one Redis', () => {
  let pair: Pair<RunningProcess, true>;
  let gatewayA: RunningProcess;
  let gatewayB: RunningProcess;
  let a: GatewayClient;
  let b: GatewayClient;
  let admin: string;

  beforeAll(async () => {
    // Both must pass the readiness gate before any refusal below can mean "revoked": startPair waits for it.
    pair = await startPair({ redis: true, instances: 2 });
    [gatewayA, gatewayB] = [pair.gateways[0]!, pair.gateways[1]!];
    a = pair.api;
    b = new GatewayClient(gatewayB.url);
    admin = await pair.adminToken();
  });
  afterAll(() => pair?.stop());

  /** An agent created on A with a token, and a session opened with it on B. */
  async function agentInSessionOnB(label: string) {
    const { agentId } = await a.createAgent(admin, { label, dailyTokenBudget: 100_000 });
    const token = await a.agentToken(admin, agentId);
    const opened = await mcpInitialize(gatewayB.url, token);
    expect(opened.status, JSON.stringify(opened.message)).toBe(200);
    const listed = await mcpRequest(gatewayB.url, token, { method: 'tools/list', sessionId: opened.sessionId! });
    expect(listed.status).toBe(200);
    return { agentId, token, sessionId: opened.sessionId! };
  }

  it('shares agents and admin tokens: an agent created on A is managed on B', async () => {
    const { agentId } = await a.createAgent(admin, { label: 'Shared', dailyTokenBudget: 10 });
    expect((await b.request('GET', `/management/agents/${agentId}`, admin)).body).toMatchObject({
      agentId,
      label: 'Shared',
    });
  });

  it('deactivation on A rejects the token on B at once, in an open session and for a new one', async () => {
    const { agentId, token, sessionId } = await agentInSessionOnB('Deactivated');

    const updated = await a.request('PUT', `/management/agents/${agentId}`, admin, { isActive: false });
    expect(updated.status).toBe(200);

    // No waiting, no retry: the very next request on B is refused.
    expectRefused(await mcpRequest(gatewayB.url, token, { method: 'tools/list', sessionId }));
    expectRefused(await mcpInitialize(gatewayB.url, token));
    expectRefused(await mcpInitialize(gatewayA.url, token));
  });

  it('a token issued while the agent is inactive is refused too', async () => {
    const { agentId } = await a.createAgent(admin, { label: 'Inactive', dailyTokenBudget: 10 });
    await a.request('PUT', `/management/agents/${agentId}`, admin, { isActive: false });
    expectRefused(await mcpInitialize(gatewayB.url, await a.agentToken(admin, agentId)));
  });

  it('reactivation does not revive tokens issued before the deactivation; new tokens work', async () => {
    const { agentId, token, sessionId } = await agentInSessionOnB('Reactivated');
    await a.request('PUT', `/management/agents/${agentId}`, admin, { isActive: false });
    const reactivated = await b.request('PUT', `/management/agents/${agentId}`, admin, { isActive: true });
    expect(reactivated.body.isActive).toBe(true);

    expectRefused(await mcpInitialize(gatewayB.url, token));
    expectRefused(await mcpInitialize(gatewayA.url, token));
    expectRefused(await mcpRequest(gatewayB.url, token, { method: 'tools/list', sessionId }));

    const fresh = await b.agentToken(admin, agentId);
    expect((await mcpInitialize(gatewayA.url, fresh)).status).toBe(200);
    expect((await mcpInitialize(gatewayB.url, fresh)).status).toBe(200);
  });

  it('other updates (budget, label) leave existing tokens valid', async () => {
    const { agentId, token, sessionId } = await agentInSessionOnB('Renamed');
    await a.request('PUT', `/management/agents/${agentId}`, admin, {
      label: 'Renamed again',
      dailyTokenBudget: 200_000,
    });
    expect((await mcpRequest(gatewayB.url, token, { method: 'tools/list', sessionId })).status).toBe(200);
  });

  it('deleting the agent on A rejects its tokens on B at once', async () => {
    const { agentId, token, sessionId } = await agentInSessionOnB('Deleted');
    expect((await a.request('DELETE', `/management/agents/${agentId}`, admin)).status).toBe(204);

    expectRefused(await mcpRequest(gatewayB.url, token, { method: 'tools/list', sessionId }));
    expectRefused(await mcpInitialize(gatewayB.url, token));
    expect((await b.request('POST', `/management/agents/${agentId}/token`, admin)).status).toBe(404);
  });

  it('deactivating one agent leaves another agent’s tokens alone', async () => {
    const kept = await agentInSessionOnB('Bystander');
    const revoked = await agentInSessionOnB('Target');
    await a.request('PUT', `/management/agents/${revoked.agentId}`, admin, { isActive: false });
    expectRefused(await mcpInitialize(gatewayB.url, revoked.token));
    expect(
      (await mcpRequest(gatewayB.url, kept.token, { method: 'tools/list', sessionId: kept.sessionId })).status,
    ).toBe(200);
  });
});
