import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DOWNSTREAM_ERROR_META,
  DOWNSTREAM_MESSAGE,
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

const INSPECTOR_BIN = binOf('@modelcontextprotocol/inspector', 'mcp-inspector');

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Client matrix, MCP Inspector CLI 2.12: the command docs/guide/clients.md shows
 * (`--cli <url> --transport http --header "Authorization: Bearer ..."`), one
 * process per question, its stdout read as its users read it.
 */
describe('client matrix: MCP Inspector CLI', { timeout: 45_000 }, () => {
  let matrix: Matrix;
  let home: string;

  /** One CLI run with its own HOME, bounded to 30 s. */
  async function inspector(token: string, args: string[]): Promise<CliRun> {
    const child = spawn(
      process.execPath,
      [
        INSPECTOR_BIN,
        '--cli',
        matrix.mcpUrl,
        '--transport',
        'http',
        '--header',
        `Authorization: Bearer ${token}`,
        ...args,
      ],
      { env: { PATH: process.env.PATH ?? '', HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    const [code] = (await once(child, 'exit')) as [number | null];
    clearTimeout(timer);
    return { code, stdout, stderr };
  }

  const call = (token: string, tool: string, ...toolArgs: string[]) =>
    inspector(token, [
      '--method',
      'tools/call',
      '--tool-name',
      tool,
      ...(toolArgs.length ? ['--tool-arg', ...toolArgs] : []),
    ]);

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'tollgate-matrix-inspector-'));
    matrix = await startMatrix();
  });
  afterAll(async () => {
    await matrix?.stop();
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('list: prints the sample tools; negotiated 2025-11-25', async () => {
    const mark = matrix.observer.exchanges.length;
    const run = await inspector(matrix.reader.token, ['--method', 'tools/list']);
    expect(run.code, run.stderr).toBe(0);
    const names = (JSON.parse(run.stdout) as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining([...SAMPLE_TOOLS]));
    expect(posts(matrix.observer.since(mark)).find((exchange) => exchange.rpc.includes('tools/list'))).toMatchObject({
      protocolVersion: '2025-11-25',
    });
  });

  it('call: prints the result of a read tool', async () => {
    const run = await call(matrix.reader.token, 'get_order', `id=${KNOWN_ORDER}`);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(resultText(JSON.parse(run.stdout)))).toMatchObject({ id: KNOWN_ORDER });
  });

  it('downstream error: prints the tool result with isError true and the downstream message, then exits 5 (its TOOL_ERROR code)', async () => {
    const run = await call(matrix.reader.token, 'get_order', `id=${MISSING_ORDER}`);
    const printed = JSON.parse(run.stdout);
    expect(printed.isError).toBe(true);
    expect(resultText(printed)).toMatch(DOWNSTREAM_MESSAGE);
    expect(printed._meta).toMatchObject(DOWNSTREAM_ERROR_META);
    expect(run.code).toBe(5);
    expect(run.stderr).toMatch(/returned isError:true/);
  });

  it('invalid arguments: prints the tool result with isError true naming the fields, exits 5', async () => {
    // --tool-arg id=abc: the CLI sends the string "abc" (it has no integer to make of it).
    const run = await call(matrix.reader.token, 'get_order', 'id=abc', 'extra=1');
    const printed = JSON.parse(run.stdout);
    expect(printed.isError).toBe(true);
    expectFieldsNamed(resultText(printed));
    expect(run.code).toBe(5);
  });

  it("budget refusal: exits 1 printing the gateway's message, which names the code (-32029) since the CLI's error envelope has no field for it", async () => {
    const run = await call(matrix.broke.token, 'get_order', `id=${KNOWN_ORDER}`);
    expect(run.code).toBe(1);
    const envelope = JSON.parse((run.stdout + run.stderr).trim()) as { error: Record<string, unknown> };
    // The Inspector's envelope: its own code ("error"), the message, and cause/status/url when it has them.
    expect(envelope.error).toMatchObject({
      code: 'error',
      message: expect.stringMatching(/budget.*exhausted \(code -32029\).*resets at \d{4}-\d{2}-\d{2}T00:00:00\.000Z/i),
    });
    expect(
      Object.keys(envelope.error).every((key) => ['code', 'message', 'cause', 'status', 'url'].includes(key)),
    ).toBe(true);
  });

  it('session end: each run initializes its own session and leaves it open (no DELETE); a run never meets an ended session', async () => {
    const first = matrix.observer.exchanges.length;
    expect((await inspector(matrix.reader.token, ['--method', 'tools/list'])).code).toBe(0);
    const second = matrix.observer.exchanges.length;
    expect((await inspector(matrix.reader.token, ['--method', 'tools/list'])).code).toBe(0);
    const runs = [matrix.observer.exchanges.slice(first, second), matrix.observer.since(second)];
    const sessions = runs.map((seen) => {
      expect(posts(seen).map((exchange) => exchange.rpc[0])).toEqual([
        'initialize',
        'notifications/initialized',
        'tools/list',
      ]);
      expect(seen.some((exchange) => exchange.method === 'DELETE')).toBe(false);
      return seen[0]!.newSessionId!;
    });
    expect(sessions[0]).not.toBe(sessions[1]);
    // The first run's session is still open on the gateway until it expires (or someone ends it).
    expect(await matrix.endSession(sessions[0]!, matrix.reader.token)).toBe(204);
  });
});
