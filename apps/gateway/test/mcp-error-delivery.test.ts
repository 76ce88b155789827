import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayClient } from './support/gateway-client.js';
import { createAgentWithToken, mcpRaw, openRawSession, rawCall, type TestAgent } from './support/mcp.js';
import { startPair, type Pair } from './support/pair.js';

const ERROR_META = 'io.tollgate/error';

/**
 * MCP's error delivery, the default (contract 7): what a client that reads
 * only the JSON-RPC messages of a 200 stream gets for each failure, against
 * the built gateway and the sample downstream; and that the audit trail keeps
 * contract 7's classification of the same calls.
 */
describe('MCP error delivery, default (dist/main.js + sample downstream)', () => {
  let pair: Pair;
  let url: string;
  let api: GatewayClient;
  let admin: string;
  let reader: TestAgent;

  beforeAll(async () => {
    pair = await startPair();
    ({ url, api } = pair);
    admin = await pair.adminToken();
    reader = await createAgentWithToken(api, admin, {
      label: 'reader',
      dailyTokenBudget: 1_000_000,
      scopes: ['orders:read', 'customers:read'],
    });
  });
  afterAll(() => pair?.stop());

  async function callIn(version: string, agent: TestAgent, name: string, args: Record<string, unknown>) {
    const { sessionId } = await openRawSession(url, agent.token, version);
    return rawCall(url, agent.token, sessionId, 'tools/call', { name, arguments: args });
  }

  it('hands a downstream 404 to the model as a tool error in HTTP 200, with the downstream’s own words and code -32002 for programs', async () => {
    const reply = await callIn('2025-11-25', reader, 'get_order', { id: 99999 });
    expect(reply.status).toBe(200);
    expect(reply.message.error).toBeUndefined();
    const result = reply.message.result;
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toMatch(/^Downstream answered 404 for tool get_order: .*Order 99999 was not found/);
    expect(result._meta[ERROR_META]).toEqual({
      code: -32002,
      kind: 'downstream-error',
      httpStatus: 502,
      reason: 'status',
      downstreamStatus: 404,
    });

    // The audit trail still says what contract 7 says about the call.
    const audit = await api.request('GET', `/management/agents/${reader.agentId}/audit?tool=get_order&limit=1`, admin);
    expect(audit.body.records[0]).toMatchObject({
      outcome: 'downstream-error',
      httpStatus: 502,
      jsonRpcCode: -32002,
      downstreamStatus: 404,
      tokensCharged: 0,
    });
  });

  it('names each bad argument in a tool error for a 2025-11-25 session, and answers -32602 in HTTP 200 for older ones', async () => {
    const current = await callIn('2025-11-25', reader, 'get_order', { id: 'not a number' });
    expect(current.status).toBe(200);
    expect(current.message.result).toMatchObject({
      isError: true,
      _meta: { [ERROR_META]: { code: -32602, kind: 'invalid-arguments', fields: [{ path: 'id' }] } },
    });
    expect(current.message.result.content[0].text).toMatch(/Invalid arguments for tool get_order: id /);

    const older = await callIn('2025-06-18', reader, 'get_order', { id: 'not a number' });
    expect(older.status).toBe(200);
    expect(older.message.error).toMatchObject({ code: -32602, data: { fields: [{ path: 'id' }] } });
  });

  it('answers an unknown tool with -32602 in HTTP 200', async () => {
    const reply = await callIn('2025-11-25', reader, 'drop_database', {});
    expect(reply.status).toBe(200);
    expect(reply.message.error).toMatchObject({ code: -32602 });
  });

  it('refuses a missing scope and a spent budget with JSON-RPC errors in HTTP 200, with data a client can act on', async () => {
    const unscoped = await createAgentWithToken(api, admin, { label: 'unscoped', dailyTokenBudget: 1_000_000 });
    const scoped = await callIn('2025-11-25', unscoped, 'list_orders', {});
    expect(scoped.status).toBe(200);
    expect(scoped.message.error).toMatchObject({
      code: -32003,
      data: { reason: 'missing-scopes', missingScopes: ['orders:read'] },
    });

    const broke = await createAgentWithToken(api, admin, {
      label: 'broke',
      dailyTokenBudget: 1,
      scopes: ['orders:read'],
    });
    await callIn('2025-11-25', broke, 'get_order', { id: 1001 });
    const refused = await callIn('2025-11-25', broke, 'get_order', { id: 1001 });
    expect(refused.status).toBe(200);
    expect(refused.message.error).toMatchObject({
      code: -32029,
      data: { remaining: 0, dailyTokenBudget: 1, resetsAt: expect.stringMatching(/T00:00:00\.000Z$/) },
    });
    expect(refused.message.error.data.retryAfterSeconds).toBeGreaterThan(0);
  });

  it('keeps HTTP statuses for credentials (401), sessions (404) and malformed requests (400)', async () => {
    const ping = { jsonrpc: '2.0', id: 5, method: 'ping' };
    const forged = await mcpRaw(url, ping, { token: 'forged', sessionId: 'A'.repeat(32) });
    expect(forged.status).toBe(401);
    expect(forged.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const lost = await mcpRaw(url, ping, { token: reader.token, sessionId: 'A'.repeat(32) });
    expect(lost.status).toBe(404);
    const malformed = await mcpRaw(url, '{"jsonrpc":', { token: reader.token });
    expect(malformed.status).toBe(400);
  });

  it('answers server/discover without the 2026-07-28 envelope (a session-era request) with -32601 in HTTP 200, as before', async () => {
    const reply = await mcpRaw(url, { jsonrpc: '2.0', id: 9, method: 'server/discover' }, { token: reader.token });
    expect(reply.status).toBe(200);
    expect(reply.message).toMatchObject({ id: 9, error: { code: -32601 } });
  });

  it('answers MCP-Protocol-Version 2026-07-28 without the envelope with HTTP 400 and -32602 naming it (issue 26)', async () => {
    const reply = await mcpRaw(
      url,
      { jsonrpc: '2.0', id: 9, method: 'server/discover' },
      { token: reader.token, headers: { 'MCP-Protocol-Version': '2026-07-28' } },
    );
    expect(reply.status).toBe(400);
    expect(reply.message).toMatchObject({ id: 9, error: { code: -32602, message: expect.stringMatching(/_meta/) } });
  });
});
