import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
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
import { openRawSession, rawCall } from './support/mcp.js';

/** Client matrix, official TypeScript SDK 1.32: `Client` + `StreamableHTTPClientTransport`, token in requestInit headers. */
describe('client matrix: @modelcontextprotocol/sdk Client over Streamable HTTP', { timeout: 30_000 }, () => {
  let matrix: Matrix;
  const clients: Client[] = [];

  async function connect(token: string): Promise<Client> {
    const transport = new StreamableHTTPClientTransport(new URL(matrix.mcpUrl), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    });
    const client = new Client({ name: 'matrix-sdk', version: '1.0.0' });
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

  it('negotiates 2025-11-25 and sends it on every later request', async () => {
    const client = await connect(matrix.reader.token);
    expect((client.transport as StreamableHTTPClientTransport).protocolVersion).toBe('2025-11-25');
    const mark = matrix.observer.exchanges.length;
    await client.ping();
    expect(posts(matrix.observer.since(mark))).toMatchObject([
      { rpc: ['ping'], protocolVersion: '2025-11-25', status: 200 },
    ]);
  });

  it('list: the sample tools are listed', async () => {
    const client = await connect(matrix.reader.token);
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining([...SAMPLE_TOOLS]));
  });

  it('call: a read tool returns the order', async () => {
    const client = await connect(matrix.reader.token);
    const result = await client.callTool({ name: 'get_order', arguments: { id: KNOWN_ORDER } });
    expect(result.isError).toBeFalsy();
    expect(JSON.parse(resultText(result))).toMatchObject({ id: KNOWN_ORDER, lines: expect.any(Array) });
  });

  it('downstream error: a tool result with isError, the downstream message in the text, -32002 in _meta', async () => {
    const client = await connect(matrix.reader.token);
    const result = await client.callTool({ name: 'get_order', arguments: { id: MISSING_ORDER } });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(DOWNSTREAM_MESSAGE);
    expect(resultText(result)).toMatch(/404/);
    expect(result._meta).toMatchObject(DOWNSTREAM_ERROR_META);
  });

  it('invalid arguments (session at 2025-11-25): a tool result with isError naming each field', async () => {
    const client = await connect(matrix.reader.token);
    const result = await client.callTool({ name: 'get_order', arguments: { ...INVALID_ARGUMENTS } });
    expect(result.isError).toBe(true);
    expectFieldsNamed(resultText(result));
    expect(result._meta).toMatchObject({ 'io.tollgate/error': { code: INVALID_PARAMS } });
  });

  it('invalid arguments in a session at an older revision (2025-06-18; no SDK client sends it, so raw): JSON-RPC -32602 in HTTP 200 naming each field', async () => {
    const { sessionId } = await openRawSession(matrix.pair.url, matrix.reader.token, '2025-06-18');
    const reply = await rawCall(
      matrix.pair.url,
      matrix.reader.token,
      sessionId,
      'tools/call',
      { name: 'get_order', arguments: { ...INVALID_ARGUMENTS } },
      7,
    );
    expect(reply.status).toBe(200);
    expect(reply.message).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: INVALID_PARAMS } });
    expectFieldsNamed(reply.message.error.message);
  });

  it('unknown tool: McpError -32602', async () => {
    const client = await connect(matrix.reader.token);
    const error = await client.callTool({ name: 'drop_tables', arguments: {} }).catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32602);
  });

  it('budget refusal: McpError -32029 with data.resetsAt and the budget', async () => {
    const client = await connect(matrix.broke.token);
    const error = await client
      .callTool({ name: 'get_order', arguments: { id: KNOWN_ORDER } })
      .catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(McpError);
    const refusal = error as McpError;
    expect(refusal.code).toBe(BUDGET_CODE);
    expect(refusal.data).toMatchObject({
      resetsAt: expect.stringMatching(/T00:00:00\.000Z$/),
      retryAfterSeconds: expect.any(Number),
      dailyTokenBudget: 0,
      remaining: 0,
    });
    expect(refusal.message).toMatch(/budget/i);
  });

  it('session end: after the session is deleted the next request is answered 404; the SDK surfaces StreamableHTTPError 404 and does not re-initialize', async () => {
    const client = await connect(matrix.reader.token);
    const transport = client.transport as StreamableHTTPClientTransport;
    const sessionId = transport.sessionId!;
    expect(await matrix.endSession(sessionId, matrix.reader.token)).toBe(204);
    const mark = matrix.observer.exchanges.length;
    const error = await client.listTools().catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(StreamableHTTPError);
    expect((error as StreamableHTTPError).code).toBe(404);
    const after = matrix.observer.since(mark);
    expect(posts(after)).toMatchObject([{ rpc: ['tools/list'], sessionId, status: 404 }]);
    expect(after.some((exchange) => exchange.rpc.includes('initialize'))).toBe(false);
  });

  it('session end by the client: terminateSession() sends DELETE (204); the gateway then refuses the old id with 404', async () => {
    const client = await connect(matrix.reader.token);
    const transport = client.transport as StreamableHTTPClientTransport;
    const sessionId = transport.sessionId!;
    const mark = matrix.observer.exchanges.length;
    await transport.terminateSession();
    expect(matrix.observer.since(mark).filter((exchange) => exchange.method === 'DELETE')).toMatchObject([
      { sessionId, status: 204 },
    ]);
    expect(await matrix.endSession(sessionId, matrix.reader.token)).toBe(404);
  });
});
