import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayClient } from './support/gateway-client.js';
import {
  connectSdkClient,
  createAgentWithToken,
  openRawSession,
  rawCall,
  resultJson,
  sdkRefusal,
  type TestAgent,
} from './support/mcp.js';
import { startPair, type Pair } from './support/pair.js';
import type { RunningProcess } from './support/processes.js';
import { HTTP_STATUS_DELIVERY } from './support/delivery.js';

/**
 * The official TypeScript SDK client (Streamable HTTP, bearer token in
 * requestInit) against the built gateway and the sample downstream: the happy
 * path and every error of contract 7 this setup can provoke (the breaker's 503
 * needs a failing downstream and is tested with the breaker). Each refusal is
 * checked twice: the status the SDK reports, and the exact JSON-RPC error.
 */
describe('MCP with the official SDK client (dist/main.js + sample downstream)', () => {
  let pair: Pair;
  let downstream: RunningProcess;
  let gateway: RunningProcess;
  let url: string;
  let reader: TestAgent;
  let writer: TestAgent;
  let allowlisted: TestAgent;
  let broke: TestAgent;
  const clients: Client[] = [];

  async function connect(token: string | undefined): Promise<Client> {
    const client = await connectSdkClient(url, token);
    clients.push(client);
    return client;
  }

  beforeAll(async () => {
    pair = await startPair({ gateway: { env: HTTP_STATUS_DELIVERY } });
    ({ downstream, gateway, url } = pair);
    const { api } = pair;
    const admin = await pair.adminToken();
    reader = await createAgentWithToken(api, admin, { label: 'reader', dailyTokenBudget: 100_000 });
    writer = await createAgentWithToken(api, admin, {
      label: 'writer',
      dailyTokenBudget: 100_000,
      scopes: ['orders:read', 'orders:write'],
    });
    allowlisted = await createAgentWithToken(api, admin, {
      label: 'allowlisted',
      dailyTokenBudget: 100_000,
      allowedTools: ['get_product'],
    });
    broke = await createAgentWithToken(api, admin, { label: 'broke', dailyTokenBudget: 0 });
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    await pair?.stop();
  });

  describe('the happy path', () => {
    it('initializes in the newest version both sides support', async () => {
      const client = await connect(reader.token);
      expect(client.getServerCapabilities()).toMatchObject({ tools: {} });
      expect(client.getServerVersion()).toMatchObject({ name: expect.any(String) });
      // The SDK sends MCP-Protocol-Version on every later request; a ping proves the gateway accepts it.
      await expect(client.ping()).resolves.toEqual({});
    });

    it('lists the tools with name, description and inputSchema', async () => {
      const client = await connect(reader.token);
      const { tools } = await client.listTools();
      const names = tools.map((tool) => tool.name);
      expect(names).toEqual(expect.arrayContaining(['get_order', 'get_product', 'search_products']));
      // Scoped tools need scopes this token lacks; quote_order is a POST without allowWrite.
      expect(names).not.toContain('list_orders');
      expect(names).not.toContain('place_order');
      expect(names).not.toContain('quote_order');
      const getOrder = tools.find((tool) => tool.name === 'get_order')!;
      expect(getOrder.description).toEqual(expect.any(String));
      expect(getOrder.inputSchema).toMatchObject({
        type: 'object',
        properties: { id: { type: 'integer' } },
        required: ['id'],
      });
      expect(getOrder.annotations).toMatchObject({ readOnlyHint: true });
    });

    it('calls a read tool: the text is the downstream response as JSON, structuredContent the same', async () => {
      const client = await connect(reader.token);
      const result = await client.callTool({ name: 'get_order', arguments: { id: 1001 } });
      expect(result.isError).toBeFalsy();
      const order = resultJson(result);
      expect(order).toMatchObject({ id: 1001, customerId: expect.any(Number), lines: expect.any(Array) });
      expect(result.structuredContent).toEqual(order);
      const direct = await fetch(`${downstream.url}/orders/1001`).then((response) => response.json());
      expect(order).toEqual(direct);
    });

    it('calls a write tool for an agent with the scopes, and the write happened', async () => {
      const client = await connect(writer.token);
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('place_order');
      const placed = resultJson(
        await client.callTool({
          name: 'place_order',
          arguments: { customerId: 3, lines: [{ sku: 'MS-210', quantity: 2 }], note: 'via MCP' },
        }),
      );
      expect(placed).toMatchObject({ id: expect.any(Number), customerId: 3, note: 'via MCP' });
      const stored = await fetch(`${downstream.url}/orders/${placed.id}`).then((response) => response.json());
      expect(stored).toMatchObject({ id: placed.id, customerId: 3, lines: [{ sku: 'MS-210', quantity: 2 }] });
    });

    it('ends the session with DELETE; the old id is then refused with 404', async () => {
      const client = await connect(reader.token);
      const transport = client.transport as StreamableHTTPClientTransport;
      const sessionId = transport.sessionId!;
      await transport.terminateSession();
      const reply = await rawCall(url, reader.token, sessionId, 'ping');
      expect(reply.status).toBe(404);
    });
  });

  describe('errors of contract 7', () => {
    it.each([
      ['no token', undefined],
      ['a token that is not a JWT', 'garbage'],
    ])('401 / -32001 with %s', async (_, token) => {
      const refusal = await sdkRefusal(connect(token));
      expect(refusal).toMatchObject({ status: 401, error: { code: -32001 } });
    });

    it('401 / -32001 with a token of another gateway (other signing key)', async () => {
      // A structurally valid HS256 JWT for an existing agent, signed with the wrong key.
      const [header, payload] = reader.token.split('.');
      const forged = `${header}.${payload}.${Buffer.from('x'.repeat(32)).toString('base64url')}`;
      const refusal = await sdkRefusal(connect(forged));
      expect(refusal).toMatchObject({ status: 401, error: { code: -32001 } });
    });

    it('401 / -32001 as soon as the agent is deactivated, inside an open session', async () => {
      const api = new GatewayClient(url);
      const admin = await api.adminToken();
      const agent = await createAgentWithToken(api, admin, { label: 'deactivated', dailyTokenBudget: 100_000 });
      const client = await connect(agent.token);
      await expect(client.callTool({ name: 'get_order', arguments: { id: 1001 } })).resolves.toBeDefined();
      expect((await api.request('PUT', `/management/agents/${agent.agentId}`, admin, { isActive: false })).status).toBe(
        200,
      );
      expect(await sdkRefusal(client.callTool({ name: 'get_order', arguments: { id: 1001 } }))).toMatchObject({
        status: 401,
        error: { code: -32001 },
      });
      expect(await sdkRefusal(client.listTools())).toMatchObject({ status: 401, error: { code: -32001 } });
    });

    it('403 / -32003 when a required scope is absent from the token', async () => {
      const client = await connect(reader.token);
      const refusal = await sdkRefusal(client.callTool({ name: 'list_orders', arguments: {} }));
      expect(refusal).toMatchObject({
        status: 403,
        error: { code: -32003, message: expect.stringContaining('orders:read') },
      });
    });

    it('403 / -32003 when the tool would write and allowWrite is false (quote_order is a POST)', async () => {
      const client = await connect(writer.token);
      const refusal = await sdkRefusal(
        client.callTool({ name: 'quote_order', arguments: { lines: [{ sku: 'KB-100', quantity: 1 }] } }),
      );
      expect(refusal).toMatchObject({
        status: 403,
        error: { code: -32003, message: expect.stringMatching(/does not allow writes/) },
      });
    });

    it('403 / -32003 for a tool outside the allowlist', async () => {
      const client = await connect(allowlisted.token);
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['get_product']);
      const refusal = await sdkRefusal(client.callTool({ name: 'get_order', arguments: { id: 1001 } }));
      expect(refusal).toMatchObject({
        status: 403,
        error: { code: -32003, message: expect.stringMatching(/allowed tools/) },
      });
      expect(resultJson(await client.callTool({ name: 'get_product', arguments: { sku: 'KB-100' } }))).toMatchObject({
        sku: 'KB-100',
      });
    });

    it('429 / -32029 when the daily budget is exhausted, with the reset time', async () => {
      const client = await connect(broke.token);
      const refusal = await sdkRefusal(client.callTool({ name: 'get_order', arguments: { id: 1001 } }));
      expect(refusal).toMatchObject({ status: 429, error: { code: -32029 } });
      expect(refusal.error.message).toMatch(/resets at \d{4}-\d{2}-\d{2}T00:00:00\.000Z/);
    });

    it('502 / -32002 with the downstream status in error.data when the downstream answers an error', async () => {
      const client = await connect(reader.token);
      const refusal = await sdkRefusal(client.callTool({ name: 'get_order', arguments: { id: 999_999 } }));
      expect(refusal).toMatchObject({ status: 502, error: { code: -32002, data: { downstreamStatus: 404 } } });
    });

    it('502 is not charged: the budget is unchanged after a downstream error', async () => {
      const api = new GatewayClient(url);
      const admin = await api.adminToken();
      const before = (await api.request('GET', `/management/agents/${reader.agentId}/budget`, admin)).body;
      const client = await connect(reader.token);
      await sdkRefusal(client.callTool({ name: 'get_order', arguments: { id: 999_998 } }));
      const after = (await api.request('GET', `/management/agents/${reader.agentId}/budget`, admin)).body;
      expect(after).toMatchObject({ used: before.used, remaining: before.remaining });
    });

    it('400 / -32602 for an unknown tool and for invalid arguments, nothing forwarded', async () => {
      const client = await connect(reader.token);
      expect(await sdkRefusal(client.callTool({ name: 'drop_tables', arguments: {} }))).toMatchObject({
        status: 400,
        error: { code: -32602 },
      });
      const invalid = await sdkRefusal(client.callTool({ name: 'get_order', arguments: { id: 'abc', extra: 1 } }));
      expect(invalid).toMatchObject({ status: 400, error: { code: -32602 } });
      expect(invalid.error.message).toMatch(/id must be integer/);
      expect(invalid.error.message).toMatch(/extra is not an input of this tool/);
    });

    it('the same codes reach a raw client exactly (HTTP status + JSON-RPC error body)', async () => {
      const { sessionId } = await openRawSession(url, reader.token);
      const cases: Array<[Record<string, unknown>, number, number]> = [
        [{ name: 'list_orders', arguments: {} }, 403, -32003],
        [{ name: 'quote_order', arguments: { lines: [{ sku: 'KB-100', quantity: 1 }] } }, 403, -32003],
        [{ name: 'get_order', arguments: { id: 999_999 } }, 502, -32002],
      ];
      for (const [params, status, code] of cases) {
        const reply = await rawCall(url, reader.token, sessionId, 'tools/call', params, 21);
        expect(reply.status).toBe(status);
        expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
        expect(reply.message).toMatchObject({ jsonrpc: '2.0', id: 21, error: { code } });
      }
      const broke429 = await openRawSession(url, broke.token);
      const reply = await rawCall(
        url,
        broke.token,
        broke429.sessionId,
        'tools/call',
        { name: 'get_order', arguments: { id: 1001 } },
        22,
      );
      expect(reply.status).toBe(429);
      expect(reply.message).toMatchObject({ jsonrpc: '2.0', id: 22, error: { code: -32029 } });
    });

    describe('502 / -32002 when the downstream fails', () => {
      let impatientPair: Pair;
      let orphanedPair: Pair;
      let impatient: RunningProcess;
      let orphaned: RunningProcess;

      beforeAll(async () => {
        // One gateway that gives the downstream 1 ms, one whose downstream is gone after start-up.
        [impatientPair, orphanedPair] = await Promise.all([
          startPair({ downstream, gateway: { env: { ...HTTP_STATUS_DELIVERY, Gw__Downstream__TimeoutMs: '1' } } }),
          startPair({ gateway: { env: HTTP_STATUS_DELIVERY } }),
        ]);
        [impatient, orphaned] = [impatientPair.gateway, orphanedPair.gateway];
        await orphanedPair.downstream.stop();
      });
      afterAll(async () => {
        await Promise.all([impatientPair?.stop(), orphanedPair?.stop()]);
      });

      async function refusalFrom(gatewayUrl: string) {
        const api = new GatewayClient(gatewayUrl);
        const admin = await api.adminToken();
        const agent = await createAgentWithToken(api, admin, { label: 'failures', dailyTokenBudget: 100_000 });
        const client = await connectSdkClient(gatewayUrl, agent.token);
        clients.push(client);
        const refusal = await sdkRefusal(client.callTool({ name: 'search_products', arguments: { q: 'mouse' } }));
        const budget = (await api.request('GET', `/management/agents/${agent.agentId}/budget`, admin)).body;
        return { refusal, budget };
      }

      it('when it does not answer within Gw:Downstream:TimeoutMs; nothing is charged', async () => {
        const { refusal, budget } = await refusalFrom(impatient.url);
        expect(refusal).toMatchObject({
          status: 502,
          error: { code: -32002, data: { reason: 'timeout', timeoutMs: 1 } },
        });
        expect(budget).toMatchObject({ used: 0, remaining: 100_000 });
      });

      it('when it cannot be reached; nothing is charged', async () => {
        const { refusal, budget } = await refusalFrom(orphaned.url);
        expect(refusal).toMatchObject({
          status: 502,
          error: { code: -32002, data: { reason: 'network', code: 'ECONNREFUSED' } },
        });
        expect(budget).toMatchObject({ used: 0, remaining: 100_000 });
      });
    });

    it('a refused call is an SDK StreamableHTTPError carrying the HTTP status', async () => {
      const client = await connect(reader.token);
      const error = await client.callTool({ name: 'list_orders', arguments: {} }).catch((failure: unknown) => failure);
      expect(error).toBeInstanceOf(StreamableHTTPError);
      expect((error as StreamableHTTPError).code).toBe(403);
    });
  });

  it('after all of the above, has written no agent token to its logs', async () => {
    const client = await connect(reader.token);
    await client.callTool({ name: 'get_order', arguments: { id: 1001 } });
    await sdkRefusal(connect(`${reader.token}x`));
    for (const token of [reader.token, writer.token, allowlisted.token, broke.token]) {
      expect(gateway.output()).not.toContain(token);
      expect(gateway.output()).not.toContain(token.split('.')[2]);
    }
  });
});
