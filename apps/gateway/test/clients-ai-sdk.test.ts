import { createMCPClient, type MCPClient } from '@ai-sdk/mcp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BUDGET_CODE,
  DOWNSTREAM_ERROR_META,
  DOWNSTREAM_MESSAGE,
  INVALID_ARGUMENTS,
  KNOWN_ORDER,
  MISSING_ORDER,
  SAMPLE_TOOLS,
  expectFieldsNamed,
  posts,
  resultText,
  startMatrix,
  type Matrix,
} from './support/client-matrix.js';

/**
 * Client matrix, Vercel `@ai-sdk/mcp` 2.0: `createMCPClient` with its HTTP
 * transport and the token as a header, then `tools()`: what `generateText`
 * hands the model. Each tool's `execute` is what the AI SDK runs for a tool
 * call, and its `toModelOutput` is what the model reads back.
 */
describe('client matrix: @ai-sdk/mcp createMCPClient over HTTP', { timeout: 30_000 }, () => {
  let matrix: Matrix;
  const clients: MCPClient[] = [];

  /** `legacy`: discovery off, so the client opens a 2025-11-25 session with initialize (`protocolVersionDiscovery: false`). */
  async function connect(token: string, legacy = false): Promise<MCPClient> {
    const client = await createMCPClient({
      transport: { type: 'http', url: matrix.mcpUrl, headers: { Authorization: `Bearer ${token}` } },
      ...(legacy && { protocolVersionDiscovery: false }),
    });
    clients.push(client);
    return client;
  }

  /** What generateText passes to execute for one tool call of the model. */
  const EXECUTION = { toolCallId: 'call-1', messages: [], context: {} };

  /** Runs a tool as the AI SDK does for a model's tool call; returns what execute gave and what the model reads. */
  async function runTool(client: MCPClient, name: string, input: Record<string, unknown>) {
    const tools = await client.tools();
    const tool = tools[name]!;
    const output: unknown = await tool.execute!(input, EXECUTION);
    const modelOutput = await tool.toModelOutput!({ toolCallId: EXECUTION.toolCallId, input, output: output as never });
    return { output, modelOutput };
  }

  beforeAll(async () => {
    matrix = await startMatrix();
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    await matrix?.stop();
  });

  it('connects: server/discover (2026-07-28) is answered, and the client stays on 2026-07-28 with no session (issue 26)', async () => {
    const mark = matrix.observer.exchanges.length;
    const client = await connect(matrix.reader.token);
    await client.tools();
    const seen = posts(matrix.observer.since(mark));
    expect(seen).toMatchObject([
      { rpc: ['server/discover'], protocolVersion: '2026-07-28', status: 200 },
      { rpc: ['tools/list'], protocolVersion: '2026-07-28', status: 200 },
    ]);
    expect(seen.every((exchange) => exchange.sessionId === undefined && exchange.newSessionId === undefined)).toBe(
      true,
    );
  });

  it('connects with discovery off: initialize at 2025-11-25, as before 2026-07-28', async () => {
    const mark = matrix.observer.exchanges.length;
    await connect(matrix.reader.token, true);
    expect(posts(matrix.observer.since(mark))).toMatchObject([
      { rpc: ['initialize'], requestedVersion: '2025-11-25', status: 200 },
      { rpc: ['notifications/initialized'], protocolVersion: '2025-11-25', status: 202 },
    ]);
  });

  it('list: tools() holds the sample tools', async () => {
    const client = await connect(matrix.reader.token);
    expect(Object.keys(await client.tools())).toEqual(expect.arrayContaining([...SAMPLE_TOOLS]));
  });

  it('call: execute returns the order; the model reads it as text', async () => {
    const client = await connect(matrix.reader.token);
    const { output, modelOutput } = await runTool(client, 'get_order', { id: KNOWN_ORDER });
    expect(JSON.parse(resultText(output))).toMatchObject({ id: KNOWN_ORDER });
    expect(modelOutput).toMatchObject({
      type: 'content',
      value: [{ type: 'text', text: expect.stringContaining(`"id":${KNOWN_ORDER}`) }],
    });
  });

  it('downstream error: execute returns the isError result (no throw); the model reads the downstream message', async () => {
    const client = await connect(matrix.reader.token);
    const { output, modelOutput } = await runTool(client, 'get_order', { id: MISSING_ORDER });
    expect(output).toMatchObject({ isError: true, _meta: DOWNSTREAM_ERROR_META });
    expect(resultText(output)).toMatch(DOWNSTREAM_MESSAGE);
    expect(modelOutput).toMatchObject({
      type: 'content',
      value: [{ type: 'text', text: expect.stringMatching(DOWNSTREAM_MESSAGE) }],
    });
  });

  it('invalid arguments: execute returns the isError result naming each field; the model reads it', async () => {
    // generateText checks the model's input against the tool's inputSchema before execute;
    // execute itself sends what it is given, so this is what a program calling it directly gets.
    const client = await connect(matrix.reader.token);
    const { output, modelOutput } = await runTool(client, 'get_order', { ...INVALID_ARGUMENTS });
    expect(output).toMatchObject({ isError: true });
    expectFieldsNamed(resultText(output));
    expectFieldsNamed(JSON.stringify(modelOutput));
  });

  it('budget refusal: execute throws MCPClientError with code -32029, the message and data.resetsAt', async () => {
    const client = await connect(matrix.broke.token);
    const tools = await client.tools();
    const error = await Promise.resolve(tools.get_order!.execute!({ id: KNOWN_ORDER }, EXECUTION)).catch(
      (failure: unknown) => failure,
    );
    expect(error).toMatchObject({
      name: 'MCPClientError',
      code: BUDGET_CODE,
      message: expect.stringMatching(/budget/i),
      data: { resetsAt: expect.any(String), retryAfterSeconds: expect.any(Number), dailyTokenBudget: 0, remaining: 0 },
    });
  });

  it('session end (discovery off, so in a session): after the session is deleted the next request is answered 404; the AI SDK surfaces MCPClientError -32600 "Session not found" and does not re-initialize', async () => {
    const client = await connect(matrix.reader.token, true);
    await client.tools();
    const sessionId = matrix.lastSessionId();
    expect(await matrix.endSession(sessionId, matrix.reader.token)).toBe(204);
    const mark = matrix.observer.exchanges.length;
    const error = await client.tools().catch((failure: unknown) => failure);
    expect(error).toMatchObject({
      name: 'MCPClientError',
      code: -32600,
      message: expect.stringMatching(/session not found/i),
    });
    const after = matrix.observer.since(mark);
    expect(posts(after)).toMatchObject([{ rpc: ['tools/list'], sessionId, status: 404 }]);
    expect(after.some((exchange) => exchange.rpc.includes('initialize'))).toBe(false);
  });
});
