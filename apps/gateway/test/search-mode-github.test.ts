import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { importOpenApi, parseSelectorList } from '@tollgate/gateway-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentAudit } from './support/audit.js';
import { GatewayClient } from './support/gateway-client.js';
import { createAgentWithToken, openRawSession, rawCall, type McpExchange, type TestAgent } from './support/mcp.js';
import { eventually, startGateway, type RunningProcess } from './support/processes.js';
import { startRecordingDownstream, type RecordingDownstream } from './support/recording-downstream.js';

/**
 * Issue 28's "done when": one built gateway in front of a GitHub fake, a
 * recording downstream serving GitHub's whole REST API (@octokit/openapi,
 * imported by the OpenAPI importer) at /gw/schema. Search mode is `auto`:
 * an agent that may call every tool gets search_tools and call_tool, finds
 * the operation it needs, and the right request reaches the fake; an agent
 * allowed one tool sees and reaches nothing else, whether it lists, searches
 * or names another tool to call_tool.
 */
describe('search mode over a GitHub fake (1,200+ tools)', { timeout: 90_000 }, () => {
  let github: RecordingDownstream;
  let gateway: RunningProcess;
  let wide: TestAgent;
  let narrow: TestAgent;
  let api: GatewayClient;
  let admin: string;
  let id = 10;
  let embeddings: Server;

  beforeAll(async () => {
    // The cache is off, so no answer depends on embeddings; an OpenAI-compatible stand-in keeps the
    // local model (seconds of CPU on a loaded machine) out of readiness.
    embeddings = await startEmbeddingsStandIn();
    const require = createRequire(import.meta.url);
    const document = JSON.parse(
      readFileSync(require.resolve('@octokit/openapi/generated/api.github.com.json'), 'utf8'),
    );
    const { tools } = importOpenApi(document, { allowWrite: parseSelectorList('issues/create') });
    github = await startRecordingDownstream(tools);
    gateway = await startGateway({
      downstreamUrl: github.url,
      env: {
        Gw__Catalog__Search: 'auto',
        Gw__Cache__Enabled: 'false',
        Gw__Embedding__Provider: 'openai',
        Gw__Embedding__BaseUrl: `http://127.0.0.1:${(embeddings.address() as AddressInfo).port}/v1`,
      },
    });
    // Longer than waitUntilReady's 20 s: the gateway reads and compiles 1,200 tool schemas first.
    await eventually(
      () => fetch(`${gateway.url}/health/ready`).then((response) => response.status),
      (status) => status === 200,
      45_000,
    );
    api = new GatewayClient(gateway.url);
    admin = await api.adminToken();
    wide = await createAgentWithToken(api, admin, { label: 'github wide', dailyTokenBudget: 1_000_000 });
    // Under the threshold (auto would list its one tool), so search mode is asked for explicitly.
    narrow = await createAgentWithToken(api, admin, {
      label: 'github narrow',
      dailyTokenBudget: 1_000_000,
      allowedTools: ['issues_get'],
      toolSearch: 'on',
    });
  }, 90_000);
  afterAll(async () => {
    await gateway?.stop();
    await github?.close();
    embeddings?.close();
  });

  const session = async (agent: TestAgent) => (await openRawSession(gateway.url, agent.token, '2025-06-18')).sessionId;
  const call = async (agent: TestAgent, sessionId: string, name: string, args: unknown): Promise<McpExchange> =>
    rawCall(gateway.url, agent.token, sessionId, 'tools/call', { name, arguments: args }, id++);
  const listed = (reply: McpExchange): string[] =>
    reply.message.result.tools.map((tool: { name: string }) => tool.name);
  const found = (reply: McpExchange): string[] =>
    reply.message.result.structuredContent.tools.map((tool: { name: string }) => tool.name);

  it('search -> call_tool -> the right request at GitHub, audited as the real tool via call_tool', async () => {
    const sessionId = await session(wide);
    expect(listed(await rawCall(gateway.url, wide.token, sessionId, 'tools/list', {}, id++))).toEqual([
      'search_tools',
      'call_tool',
    ]);
    const search = await call(wide, sessionId, 'search_tools', {
      query: 'list the open pull requests of a repository',
    });
    expect(found(search).slice(0, 3)).toContain('pulls_list');
    const schema = search.message.result.structuredContent.tools.find(
      (tool: { name: string }) => tool.name === 'pulls_list',
    ).inputSchema;
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(['owner', 'repo', 'state']));
    const before = github.requests.length;
    const answer = await call(wide, sessionId, 'call_tool', {
      name: 'pulls_list',
      arguments: { owner: 'octocat', repo: 'hello-world', state: 'open' },
    });
    expect(answer.message.result.isError).toBeUndefined();
    expect(github.requests.slice(before)).toEqual([
      { method: 'GET', target: '/repos/octocat/hello-world/pulls?state=open', body: '' },
    ]);
    const created = await call(wide, sessionId, 'call_tool', {
      name: 'issues_create',
      arguments: { owner: 'octocat', repo: 'hello-world', title: 'Found with search_tools' },
    });
    expect(created.message.result.isError).toBeUndefined();
    expect(github.requests.at(-1)).toMatchObject({ method: 'POST', target: '/repos/octocat/hello-world/issues' });
    expect(JSON.parse(github.requests.at(-1)!.body)).toEqual({ title: 'Found with search_tools' });
    const audit = await agentAudit(api, admin, wide.agentId);
    expect(audit.filter((record) => record.tool === 'pulls_list' || record.tool === 'issues_create')).toEqual([
      expect.objectContaining({ tool: 'issues_create', via: 'call_tool', outcome: 'ok' }),
      expect.objectContaining({ tool: 'pulls_list', via: 'call_tool', outcome: 'ok' }),
    ]);
  });

  it('a write the catalog does not allow is neither found nor called', async () => {
    const sessionId = await session(wide);
    expect(
      found(await call(wide, sessionId, 'search_tools', { query: 'delete a repository', limit: 20 })),
    ).not.toContain('repos_delete');
    const before = github.requests.length;
    const refused = await call(wide, sessionId, 'call_tool', {
      name: 'repos_delete',
      arguments: { owner: 'octocat', repo: 'hello-world' },
    });
    expect(refused.message.error ?? refused.message.result?._meta).toBeDefined();
    expect(github.requests.length).toBe(before);
  });

  it('an agent allowed one tool lists, finds and reaches nothing else', async () => {
    const sessionId = await session(narrow);
    expect(listed(await rawCall(gateway.url, narrow.token, sessionId, 'tools/list', {}, id++))).toEqual([
      'search_tools',
      'call_tool',
    ]);
    for (const query of [
      'list the open pull requests of a repository',
      'create an issue',
      'delete a repository',
      'issue',
    ]) {
      const names = found(await call(narrow, sessionId, 'search_tools', { query, limit: 20 }));
      expect(names.filter((name) => name !== 'issues_get')).toEqual([]);
    }
    const before = github.requests.length;
    for (const name of ['pulls_list', 'issues_create', 'repos_delete', 'other_issues_get']) {
      const refused = await call(narrow, sessionId, 'call_tool', {
        name,
        arguments: { owner: 'octocat', repo: 'hello-world' },
      });
      expect(refused.message.error?.code ?? refused.message.result?.isError).toBeTruthy();
    }
    expect(github.requests.length).toBe(before);
    await call(narrow, sessionId, 'call_tool', {
      name: 'issues_get',
      arguments: { owner: 'octocat', repo: 'hello-world', issue_number: 1 },
    });
    expect(github.requests.slice(before)).toEqual([
      { method: 'GET', target: '/repos/octocat/hello-world/issues/1', body: '' },
    ]);
  });
});

/** Answers every POST /v1/embeddings with one fixed vector per input. */
async function startEmbeddingsStandIn(): Promise<Server> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const input = (JSON.parse(body) as { input: string[] }).input;
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ data: input.map((_, index) => ({ index, embedding: [1, 0, 0] })) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}
