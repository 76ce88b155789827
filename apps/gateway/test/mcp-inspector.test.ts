import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { countTokens } from '@tollgate/gateway-core/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayClient } from './support/gateway-client.js';
import { createAgentWithToken, type TestAgent } from './support/mcp.js';
import { startPair, type Pair } from './support/pair.js';
import type { RunningProcess } from './support/processes.js';

/** The launcher behind `npx @modelcontextprotocol/inspector` (its `bin`), run with this Node. */
const require = createRequire(import.meta.url);
const INSPECTOR_PACKAGE = require.resolve('@modelcontextprotocol/inspector/package.json');
const INSPECTOR_BIN = join(
  dirname(INSPECTOR_PACKAGE),
  (require(INSPECTOR_PACKAGE) as { bin: Record<string, string> }).bin['mcp-inspector']!,
);

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * MCP Inspector CLI smoke test: the command a user pastes from docs/guide/clients.md
 * (`npx @modelcontextprotocol/inspector --cli <url>/mcp --transport http
 * --header "Authorization: Bearer ..."`) lists and calls tools through real
 * agent authentication.
 */
describe('MCP Inspector CLI against the built gateway', () => {
  let pair: Pair;
  let downstream: RunningProcess;
  let gateway: RunningProcess;
  let home: string;
  let api: GatewayClient;
  let admin: string;
  let agent: TestAgent;

  /** Runs the CLI with its own HOME, so it never touches the developer's Inspector settings. */
  async function inspector(args: string[], token: string | undefined): Promise<CliRun> {
    const auth = token === undefined ? [] : ['--header', `Authorization: Bearer ${token}`];
    const child = spawn(
      process.execPath,
      [INSPECTOR_BIN, '--cli', `${gateway.url}/mcp`, '--transport', 'http', ...auth, ...args],
      {
        env: { PATH: process.env.PATH ?? '', HOME: home },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
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

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'tollgate-inspector-'));
    pair = await startPair();
    ({ downstream, gateway, api } = pair);
    admin = await pair.adminToken();
    agent = await createAgentWithToken(api, admin, {
      label: 'inspector',
      dailyTokenBudget: 100_000,
      scopes: ['customers:write'],
    });
  });
  afterAll(async () => {
    await pair?.stop();
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('lists the tools the agent may call', async () => {
    const run = await inspector(['--method', 'tools/list'], agent.token);
    expect(run.code, run.stderr).toBe(0);
    const names = (JSON.parse(run.stdout) as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['get_order', 'get_product', 'create_customer']));
    expect(names).not.toContain('list_orders');
  });

  it('calls a read tool with --tool-arg and is charged for the text it got', async () => {
    const run = await inspector(
      ['--method', 'tools/call', '--tool-name', 'get_order', '--tool-arg', 'id=1001'],
      agent.token,
    );
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as {
      content: Array<{ type: string; text: string }>;
      structuredContent?: unknown;
    };
    const direct = await fetch(`${downstream.url}/orders/1001`).then((response) => response.json());
    expect(JSON.parse(result.content[0]!.text)).toEqual(direct);
    expect(result.structuredContent).toEqual(direct);
    const budget = await api.request('GET', `/management/agents/${agent.agentId}/budget`, admin);
    expect(budget.body.used).toBe(countTokens(result.content[0]!.text));
  });

  it('calls a write tool the token is scoped for', async () => {
    const email = `inspector-${Date.now()}@example.com`;
    const run = await inspector(
      ['--method', 'tools/call', '--tool-name', 'create_customer', '--tool-arg', 'name=Ada Lovelace', `email=${email}`],
      agent.token,
    );
    expect(run.code, run.stderr).toBe(0);
    const created = JSON.parse(JSON.parse(run.stdout).content[0].text) as { id: number; email: string };
    // The downstream echoes the email; the privacy filter keeps it from the agent.
    expect(created.email).toBe('[REDACTED:email]');
    const stored = await fetch(`${downstream.url}/customers/${created.id}`).then((response) => response.json());
    expect(stored).toMatchObject({ name: 'Ada Lovelace', email });
  });

  it('does not find a tool the agent may not call', async () => {
    const run = await inspector(['--method', 'tools/call', '--tool-name', 'list_orders'], agent.token);
    expect(run.code).not.toBe(0);
    expect(run.stdout + run.stderr).toMatch(/not found/i);
  });

  it('fails without a token: the gateway answers 401', async () => {
    const run = await inspector(['--method', 'tools/list'], undefined);
    expect(run.code).not.toBe(0);
    expect(run.stdout + run.stderr).toMatch(/auth_required|401|unauthorized/i);
    expect(run.stdout).not.toMatch(/"tools"/);
  });
});
