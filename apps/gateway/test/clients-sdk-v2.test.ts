import { Client, ProtocolError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BUDGET_CODE,
  DOWNSTREAM_ERROR_META,
  DOWNSTREAM_MESSAGE,
  INVALID_ARGUMENTS,
  INVALID_PARAMS,
  KNOWN_ORDER,
  MISSING_ORDER,
  SAMPLE_TOOLS,
  expectFieldsNamed,
  posts,
  resultText,
  startMatrix,
  type Matrix,
} from './support/client-matrix.js';
import { createAgentWithToken } from './support/mcp.js';

const MODERN = '2026-07-28';
const SERVER_INFO_KEY = 'io.modelcontextprotocol/serverInfo';

/**
 * Client matrix, official TypeScript SDK v2 (`@modelcontextprotocol/client`,
 * pinned): negotiating (`versionNegotiation: { mode: 'auto' }`, probes with
 * server/discover and stays modern) and pinned to 2026-07-28. Every request
 * goes without a session: the observer sees no Mcp-Session-Id either way.
 */
describe('client matrix: @modelcontextprotocol/client v2 (MCP 2026-07-28)', { timeout: 30_000 }, () => {
  let matrix: Matrix;
  const clients: Client[] = [];

  async function connect(token: string, mode: 'auto' | { pin: string }): Promise<Client> {
    const transport = new StreamableHTTPClientTransport(new URL(matrix.mcpUrl), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    });
    const client = new Client({ name: 'matrix-sdk-v2', version: '2.4.0' }, { versionNegotiation: { mode } });
    clients.push(client);
    await client.connect(transport);
    return client;
  }

  beforeAll(async () => {
    matrix = await startMatrix();
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    await matrix?.stop();
  });

  describe.each([
    ['negotiating', 'auto' as const],
    ['pinned to 2026-07-28', { pin: MODERN }],
  ])('%s', (_label, mode) => {
    it('connects with server/discover and stays on 2026-07-28, with no session and no initialize', async () => {
      const mark = matrix.observer.exchanges.length;
      const client = await connect(matrix.reader.token, mode);
      expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
      await client.listTools();
      const seen = matrix.observer.since(mark);
      expect(posts(seen)).toMatchObject([
        { rpc: ['server/discover'], protocolVersion: MODERN, status: 200 },
        { rpc: ['tools/list'], protocolVersion: MODERN, status: 200 },
      ]);
      expect(seen.every((exchange) => exchange.sessionId === undefined && exchange.newSessionId === undefined)).toBe(
        true,
      );
    });

    it('list: the sample tools', async () => {
      const client = await connect(matrix.reader.token, mode);
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).toEqual(expect.arrayContaining([...SAMPLE_TOOLS]));
    });

    it('call: a read tool returns the order, the result carrying the server identity', async () => {
      const client = await connect(matrix.reader.token, mode);
      const result = await client.callTool({ name: 'get_order', arguments: { id: KNOWN_ORDER } });
      expect(result.isError).toBeFalsy();
      expect(JSON.parse(resultText(result))).toMatchObject({ id: KNOWN_ORDER, lines: expect.any(Array) });
      expect(result._meta?.[SERVER_INFO_KEY]).toMatchObject({ name: expect.any(String) });
    });

    it('downstream error: a tool result with isError, the downstream message, -32002 in _meta', async () => {
      const client = await connect(matrix.reader.token, mode);
      const result = await client.callTool({ name: 'get_order', arguments: { id: MISSING_ORDER } });
      expect(result.isError).toBe(true);
      expect(resultText(result)).toMatch(DOWNSTREAM_MESSAGE);
      expect(result._meta).toMatchObject(DOWNSTREAM_ERROR_META);
    });

    it('invalid arguments: a tool result with isError naming each field', async () => {
      const client = await connect(matrix.reader.token, mode);
      const result = await client.callTool({ name: 'get_order', arguments: { ...INVALID_ARGUMENTS } });
      expect(result.isError).toBe(true);
      expectFieldsNamed(resultText(result));
      expect(result._meta).toMatchObject({ 'io.tollgate/error': { code: INVALID_PARAMS } });
    });

    it.each([
      ['accepted', 'accept' as const],
      ['declined', 'decline' as const],
    ])(
      "write confirmation %s: the client's elicitation handler answers the question, and the client retries the call itself",
      async (_label, action) => {
        const admin = await matrix.pair.adminToken();
        const careful = await createAgentWithToken(matrix.pair.api, admin, {
          label: `matrix-v2-confirm-${action}`,
          dailyTokenBudget: 1_000_000,
          scopes: ['orders:write'],
          confirmWrites: true,
        });
        const transport = new StreamableHTTPClientTransport(new URL(matrix.mcpUrl), {
          requestInit: { headers: { Authorization: `Bearer ${careful.token}` } },
        });
        const client = new Client(
          { name: 'matrix-sdk-v2-confirm', version: '2.4.0' },
          { versionNegotiation: { mode }, capabilities: { elicitation: { form: {} } } },
        );
        const questions: string[] = [];
        client.setRequestHandler('elicitation/create', async (request) => {
          questions.push(request.params.message);
          return action === 'accept' ? { action, content: { confirm: true } } : { action };
        });
        clients.push(client);
        await client.connect(transport);
        const mark = matrix.observer.exchanges.length;
        const result = await client.callTool({
          name: 'place_order',
          arguments: { customerId: 1, lines: [{ sku: 'KB-100', quantity: 1 }] },
        });
        expect(questions).toEqual([
          expect.stringMatching(
            /^Confirm this call before it is sent: place_order .*\(POST \/orders\) with \{"customerId":1,/,
          ),
        ]);
        // Two requests on the wire, each its own call: the question, then the retry with the answer.
        expect(posts(matrix.observer.since(mark)).map((exchange) => exchange.rpc[0])).toEqual([
          'tools/call',
          'tools/call',
        ]);
        if (action === 'accept') {
          expect(result.isError).toBeFalsy();
          expect(JSON.parse(resultText(result))).toMatchObject({ customerId: 1, status: 'pending' });
        } else {
          expect(result.isError).toBe(true);
          expect(resultText(result)).toMatch(/did not confirm/);
        }
      },
    );

    it('budget refusal: ProtocolError -32029 with data.resetsAt and the budget', async () => {
      const client = await connect(matrix.broke.token, mode);
      const error = await client
        .callTool({ name: 'get_order', arguments: { id: KNOWN_ORDER } })
        .catch((failure: unknown) => failure);
      expect(error).toBeInstanceOf(ProtocolError);
      const refusal = error as ProtocolError;
      expect(refusal.code).toBe(BUDGET_CODE);
      expect(refusal.data).toMatchObject({
        resetsAt: expect.stringMatching(/T00:00:00\.000Z$/),
        dailyTokenBudget: 0,
        remaining: 0,
      });
    });
  });

  it('listen stream: a client with listChanged.tools opens subscriptions/listen at connect and hears an allowlist change (onChanged with the new list)', async () => {
    const admin = await matrix.pair.adminToken();
    const agent = await createAgentWithToken(matrix.pair.api, admin, {
      label: 'matrix-v2-listen',
      dailyTokenBudget: 1_000_000,
    });
    let heard: (tools: Array<{ name: string }>) => void = () => undefined;
    const changed = new Promise<Array<{ name: string }>>((resolve) => (heard = resolve));
    const transport = new StreamableHTTPClientTransport(new URL(matrix.mcpUrl), {
      requestInit: { headers: { Authorization: `Bearer ${agent.token}` } },
    });
    const client = new Client(
      { name: 'matrix-sdk-v2-listen', version: '2.4.0' },
      {
        versionNegotiation: { mode: { pin: MODERN } },
        listChanged: { tools: { debounceMs: 0, onChanged: (error, tools) => !error && tools && heard(tools) } },
      },
    );
    clients.push(client);
    const mark = matrix.observer.exchanges.length;
    await client.connect(transport);
    expect(posts(matrix.observer.since(mark)).map((exchange) => exchange.rpc[0])).toEqual([
      'server/discover',
      'subscriptions/listen',
    ]);
    expect(
      (
        await matrix.pair.api.request('PUT', `/management/agents/${agent.agentId}`, admin, {
          allowedTools: ['get_order'],
        })
      ).status,
    ).toBe(200);
    expect((await changed).map((tool) => tool.name)).toEqual(['get_order']);
  });

  it('the v2 client in its default (legacy) mode still opens a 2025-11-25 session', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(matrix.mcpUrl), {
      requestInit: { headers: { Authorization: `Bearer ${matrix.reader.token}` } },
    });
    const client = new Client({ name: 'matrix-sdk-v2-legacy', version: '2.4.0' });
    clients.push(client);
    await client.connect(transport);
    expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
  });
});
