import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BUDGET_CODE,
  DOWNSTREAM_ERROR_META,
  DOWNSTREAM_MESSAGE,
  INVALID_ARGUMENTS,
  KNOWN_ORDER,
  MISSING_ORDER,
  SAMPLE_TOOLS,
  binOf,
  expectFieldsNamed,
  posts,
  resultText,
  startMatrix,
  type Matrix,
} from './support/client-matrix.js';
import { eventually } from './support/processes.js';

const MCP_REMOTE_BIN = binOf('mcp-remote', 'mcp-remote');

/**
 * Client matrix, `mcp-remote` 0.15 as a stdio bridge: the command docs/guide/clients.md
 * gives stdio-only hosts (`npx mcp-remote <url> --header "Authorization:
 * Bearer ..."`), run with this Node, and the official SDK's `Client` over
 * `StdioClientTransport` playing the host (Claude Desktop and the like).
 */
describe('client matrix: mcp-remote (stdio bridge) driven by the SDK over stdio', { timeout: 45_000 }, () => {
  let matrix: Matrix;
  let home: string;
  const bridges: Array<{ client: Client; stderr: () => string }> = [];

  /** Starts one mcp-remote process for the token and connects a stdio client to it. */
  async function bridge(token: string): Promise<{ client: Client; stderr: () => string }> {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [MCP_REMOTE_BIN, matrix.mcpUrl, '--header', `Authorization: Bearer ${token}`],
      // Its own HOME and config directory: no OAuth state of the developer is read or written.
      env: { PATH: process.env.PATH ?? '', HOME: home, MCP_REMOTE_CONFIG_DIR: join(home, '.mcp-auth') },
      stderr: 'pipe',
    });
    let stderr = '';
    (transport.stderr as Readable | null)?.on('data', (chunk) => (stderr += chunk));
    const client = new Client({ name: 'matrix-stdio-host', version: '1.0.0' });
    const opened = { client, stderr: () => stderr };
    bridges.push(opened);
    await client.connect(transport, { timeout: 20_000 });
    return opened;
  }

  let reader: Client;

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'tollgate-matrix-mcp-remote-'));
    matrix = await startMatrix();
    reader = (await bridge(matrix.reader.token)).client;
  });
  afterAll(async () => {
    // Closing the stdio transport ends the mcp-remote process.
    await Promise.all(bridges.map(({ client }) => client.close().catch(() => undefined)));
    await matrix?.stop();
    if (home) await rm(home, { recursive: true, force: true });
  });

  it("connects with the header alone: probes for OAuth metadata (404s) but starts no flow, opens no browser, stores no tokens; the host's initialize goes through at 2025-11-25", async () => {
    const seen = matrix.observer.exchanges;
    // Its start-up: a GET /mcp probe for a 401 challenge (405 here), the OAuth/OIDC metadata probes (all 404).
    expect(
      seen
        .filter((exchange) => exchange.path !== '/mcp')
        .every((exchange) => exchange.path.includes('/.well-known/') && exchange.status === 404),
    ).toBe(true);
    expect(seen.some((exchange) => /\/(authorize|register|token)\b/.test(exchange.path))).toBe(false);
    expect(bridges[0]!.stderr()).not.toMatch(/Please authorize|Browser opened/);
    expect(
      posts(seen)
        .filter((exchange) => exchange.rpc.includes('initialize'))
        .at(-1),
    ).toMatchObject({ requestedVersion: '2025-11-25', status: 200 });
    const stored = await readdir(join(home, '.mcp-auth'), { recursive: true, withFileTypes: true }).catch(() => []);
    expect(stored.filter((entry) => entry.isFile()).map((entry) => entry.name)).toEqual([]);
  });

  it('list: the sample tools come through stdio', async () => {
    const names = (await reader.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining([...SAMPLE_TOOLS]));
  });

  it('call: a read tool returns the order', async () => {
    const result = await reader.callTool({ name: 'get_order', arguments: { id: KNOWN_ORDER } });
    expect(result.isError).toBeFalsy();
    expect(JSON.parse(resultText(result))).toMatchObject({ id: KNOWN_ORDER });
  });

  it('downstream error: the isError result with the downstream message comes through stdio unchanged', async () => {
    const result = await reader.callTool({ name: 'get_order', arguments: { id: MISSING_ORDER } });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(DOWNSTREAM_MESSAGE);
    expect(result._meta).toMatchObject(DOWNSTREAM_ERROR_META);
  });

  it('invalid arguments: the isError result naming each field', async () => {
    const result = await reader.callTool({ name: 'get_order', arguments: { ...INVALID_ARGUMENTS } });
    expect(result.isError).toBe(true);
    expectFieldsNamed(resultText(result));
  });

  it('budget refusal: McpError -32029 with data.resetsAt, code and data kept by the bridge', async () => {
    const { client } = await bridge(matrix.broke.token);
    const error = await client
      .callTool({ name: 'get_order', arguments: { id: KNOWN_ORDER } })
      .catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(McpError);
    expect(error).toMatchObject({
      code: BUDGET_CODE,
      data: { resetsAt: expect.any(String), retryAfterSeconds: expect.any(Number), dailyTokenBudget: 0, remaining: 0 },
    });
    expect((error as McpError).message).toMatch(/budget/i);
  });

  it('session end: after the session is deleted the next request is answered 404; mcp-remote re-initializes by itself and the request succeeds', async () => {
    const { client, stderr } = await bridge(matrix.reader.token);
    // The bridge forwards the host's notifications/initialized on its own time: wait until the gateway has it.
    const sessionId = matrix.lastSessionId();
    await eventually(
      async () =>
        posts(matrix.observer.exchanges).some(
          (exchange) =>
            exchange.sessionId === sessionId &&
            exchange.rpc.includes('notifications/initialized') &&
            exchange.status === 202,
        ),
      (forwarded) => forwarded,
      5_000,
    );
    expect(await matrix.endSession(sessionId, matrix.reader.token)).toBe(204);
    const mark = matrix.observer.exchanges.length;
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining([...SAMPLE_TOOLS]));
    const after = posts(matrix.observer.since(mark));
    expect(after[0]).toMatchObject({ rpc: ['tools/list'], sessionId, status: 404 });
    const fresh = after.find((exchange) => exchange.rpc.includes('initialize'));
    expect(fresh).toMatchObject({ status: 200, newSessionId: expect.any(String) });
    expect(after.at(-1)).toMatchObject({ rpc: ['tools/list'], sessionId: fresh!.newSessionId, status: 200 });
    expect(stderr()).toMatch(/re-initializing/i);
  });
});
