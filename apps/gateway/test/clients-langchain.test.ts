import { ToolInputParsingException, type StructuredToolInterface } from '@langchain/core/tools';
import { ToolMessage } from '@langchain/core/messages';
import { MultiServerMCPClient } from '@langchain/mcp-adapters';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BUDGET_CODE,
  DOWNSTREAM_MESSAGE,
  INVALID_ARGUMENTS,
  KNOWN_ORDER,
  MISSING_ORDER,
  SAMPLE_TOOLS,
  posts,
  startMatrix,
  type Matrix,
} from './support/client-matrix.js';

/**
 * Client matrix, `@langchain/mcp-adapters` 1.1 with `@langchain/core` 1.4:
 * `MultiServerMCPClient` over Streamable HTTP with the token as a header,
 * `getTools()`, and each tool invoked with a tool call as an agent does; the
 * ToolMessage is what the model reads. A tool error becomes a thrown
 * ToolException (what an agent's tool node turns into an error ToolMessage).
 */
describe('client matrix: @langchain/mcp-adapters MultiServerMCPClient over HTTP', { timeout: 30_000 }, () => {
  let matrix: Matrix;
  const clients: MultiServerMCPClient[] = [];

  async function toolsFor(
    token: string,
  ): Promise<{ client: MultiServerMCPClient; tools: Map<string, StructuredToolInterface> }> {
    const client = new MultiServerMCPClient({
      mcpServers: {
        tollgate: { transport: 'http', url: matrix.mcpUrl, headers: { Authorization: `Bearer ${token}` } },
      },
    });
    clients.push(client);
    const tools = await client.getTools();
    return { client, tools: new Map(tools.map((tool) => [tool.name, tool])) };
  }

  /** A tool call as an agent makes it: the result is a ToolMessage. */
  const toolCall = (name: string, args: Record<string, unknown>) => ({
    type: 'tool_call' as const,
    id: 'call-1',
    name,
    args,
  });

  beforeAll(async () => {
    matrix = await startMatrix();
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    await matrix?.stop();
  });

  it('list: getTools() holds the sample tools; negotiated 2025-11-25', async () => {
    const mark = matrix.observer.exchanges.length;
    const { tools } = await toolsFor(matrix.reader.token);
    expect([...tools.keys()]).toEqual(expect.arrayContaining([...SAMPLE_TOOLS]));
    expect(posts(matrix.observer.since(mark)).find((exchange) => exchange.rpc.includes('tools/list'))).toMatchObject({
      protocolVersion: '2025-11-25',
    });
  });

  it('call: the ToolMessage holds the order', async () => {
    const { tools } = await toolsFor(matrix.reader.token);
    const message = await tools.get('get_order')!.invoke(toolCall('get_order', { id: KNOWN_ORDER }));
    expect(message).toBeInstanceOf(ToolMessage);
    expect(JSON.stringify((message as ToolMessage).content)).toContain(`\\"id\\":${KNOWN_ORDER}`);
  });

  it('downstream error: a ToolException "returned an error: <downstream message>" (the isError result), not a transport error', async () => {
    const { tools } = await toolsFor(matrix.reader.token);
    const error = await tools
      .get('get_order')!
      .invoke(toolCall('get_order', { id: MISSING_ORDER }))
      .catch((failure: unknown) => failure);
    expect(error).toMatchObject({ name: 'ToolException', message: expect.stringMatching(/returned an error: /) });
    expect((error as Error).message).toMatch(DOWNSTREAM_MESSAGE);
  });

  it('invalid arguments: refused by LangChain itself against the tool schema (ToolInputParsingException), no request reaches the gateway', async () => {
    const { tools } = await toolsFor(matrix.reader.token);
    const mark = matrix.observer.exchanges.length;
    for (const args of [{ ...INVALID_ARGUMENTS }, { id: KNOWN_ORDER, extra: 1 }]) {
      const error = await tools
        .get('get_order')!
        .invoke(toolCall('get_order', args))
        .catch((failure: unknown) => failure);
      expect(error).toBeInstanceOf(ToolInputParsingException);
      expect((error as Error).message).toMatch(/did not match expected schema/);
    }
    expect(matrix.observer.since(mark)).toEqual([]);
  });

  it('budget refusal: a ToolException carrying the -32029 McpError text', async () => {
    const { tools } = await toolsFor(matrix.broke.token);
    const error = await tools
      .get('get_order')!
      .invoke(toolCall('get_order', { id: KNOWN_ORDER }))
      .catch((failure: unknown) => failure);
    expect(error).toMatchObject({ name: 'ToolException' });
    expect((error as Error).message).toMatch(new RegExp(`MCP error ${BUDGET_CODE}`));
    expect((error as Error).message).toMatch(/budget/i);
  });

  it('session end: after the session is deleted the next call is answered 404; LangChain raises a ToolException with the transport error ("Session not found") and does not re-initialize', async () => {
    const { tools } = await toolsFor(matrix.reader.token);
    const sessionId = matrix.lastSessionId();
    expect(await matrix.endSession(sessionId, matrix.reader.token)).toBe(204);
    const mark = matrix.observer.exchanges.length;
    const error = await tools
      .get('get_order')!
      .invoke(toolCall('get_order', { id: KNOWN_ORDER }))
      .catch((failure: unknown) => failure);
    expect(error).toMatchObject({
      name: 'ToolException',
      message: expect.stringMatching(/Streamable HTTP error.*-32600.*Session not found/),
    });
    const after = matrix.observer.since(mark);
    expect(posts(after)).toMatchObject([{ rpc: ['tools/call'], sessionId, status: 404 }]);
    expect(after.some((exchange) => exchange.rpc.includes('initialize'))).toBe(false);
  });
});
