import { describe, expect, it } from 'vitest';
import { AgentService, type NewAgent } from '../agents/agent-service.js';
import type { AuditEvent } from '../audit/trail.js';
import { TokenService } from '../auth/token-service.js';
import { ToolSearchMode, type SearchModeSetting } from '../catalog/search/search-mode.js';
import { SettlementQueue } from '../pipeline/settlement-queue.js';
import { createMemoryStore } from '../store/memory/index.js';
import { archiveCustomer, createOrder, deleteCustomer, getCustomer } from '../testing/tool-fixtures.js';
import { buildToolRegistry } from '../tools/registry.js';
import type { McpAnswer, McpReply } from './mcp-messages.js';
import { McpService } from './mcp-service.js';
import { WriteConfirmation } from './write-confirmation.js';

const { registry } = buildToolRegistry([getCustomer, createOrder, deleteCustomer, archiveCustomer]);
const rpc = (method: string, params: Record<string, unknown> = {}, id = 1) =>
  JSON.stringify({ jsonrpc: '2.0', id, method, params });
const call = (name: string, args: unknown) => rpc('tools/call', { name, arguments: args });

/** The service over the memory store, in search mode as `mode` says, with a forwarder that counts. */
async function setup(mode: SearchModeSetting, agentInput: Partial<NewAgent> = {}, protocolVersion = '2025-11-25') {
  const clock = () => new Date('2025-05-01T12:00:00Z');
  const store = createMemoryStore();
  const tokens = new TokenService({ signingKey: 's'.repeat(32), clock });
  const agents = new AgentService({ store, tokens, clock });
  const settlements = new SettlementQueue({ ledger: store.budget });
  const forwarded: string[] = [];
  const audited: AuditEvent[] = [];
  const service = new McpService({
    agents,
    sessions: store.sessions,
    sessionIdleMs: 60_000,
    toolSearch: new ToolSearchMode({ mode, threshold: 2, registry: () => registry }),
    toolCall: {
      registry: () => registry,
      budget: store.budget,
      settlements,
      forwarder: {
        forward: async (tool) => (
          forwarded.push(tool.name), { status: 200, headers: {}, body: { id: '7', name: 'Ada' }, durationMs: 1 }
        ),
      },
      clock,
    },
    serverInfo: { name: 'tollgate', version: '0.0.0-test' },
    audit: (event) => audited.push(event),
    isReady: async () => true,
  });
  const agent = await agents.create({ label: 'searcher', dailyTokenBudget: 10_000, ...agentInput });
  const authorization = `Bearer ${(await agents.issueToken(agent.agentId, 1)).token}`;
  const post = async (body: string, sessionId?: string): Promise<McpAnswer> =>
    answered(service.post({ authorization, sessionId, protocolVersion: undefined, body }));
  const sessionId = (
    await post(rpc('initialize', { protocolVersion, capabilities: {}, clientInfo: { name: 't', version: '1' } }))
  ).sessionId!;
  const send = (body: string) => post(body, sessionId);
  const used = async () => (
    await settlements.settled(agent.agentId), (await store.budget.usage(agent.agentId, clock())).used
  );
  return { send, forwarded, audited, used };
}

async function answered(reply: McpReply | Promise<McpReply>): Promise<McpAnswer> {
  const settled = await reply;
  if (settled.kind === 'pending') return settled.answer;
  if (settled.kind !== 'answer') throw new Error(`expected an answer, got ${settled.kind}`);
  return settled;
}

const listedNames = (reply: McpAnswer) =>
  ((reply.message as { result: { tools: Array<{ name: string }> } }).result.tools ?? []).map((tool) => tool.name);
const foundNames = (reply: McpAnswer) =>
  (
    reply.message as { result: { structuredContent: { tools: Array<{ name: string }> } } }
  ).result.structuredContent.tools.map((tool) => tool.name);

describe('McpService in search mode', () => {
  it('lists search_tools and call_tool, and the pinned tools the agent may call', async () => {
    const { send } = await setup('on', { pinnedTools: ['getCustomer', 'createOrder'] });
    expect(listedNames(await send(rpc('tools/list')))).toEqual(['search_tools', 'call_tool', 'getCustomer']);
  });

  it('auto: the whole catalog up to the threshold, search beyond it', async () => {
    const few = await setup('auto', { allowedTools: ['getCustomer', 'deleteCustomer'] });
    expect(listedNames(await few.send(rpc('tools/list')))).toEqual(['getCustomer', 'deleteCustomer']);
    const many = await setup('auto', { scopes: ['orders:write'] });
    expect(listedNames(await many.send(rpc('tools/list')))).toEqual(['search_tools', 'call_tool']);
  });

  it('an agent set off sees the catalog in a gateway set on, and call_tool is unknown to it', async () => {
    const { send, forwarded } = await setup('on', { toolSearch: 'off' });
    expect(listedNames(await send(rpc('tools/list')))).toEqual(['getCustomer', 'deleteCustomer']);
    const refused = await send(call('call_tool', { name: 'getCustomer', arguments: { id: '7' } }));
    expect(refused.failure).toMatchObject({ code: 'unknown-tool' });
    expect(forwarded).toEqual([]);
  });

  it('search finds only tools the agent may call, ranked, with their schema in structuredContent and text', async () => {
    const { send, used } = await setup('on');
    const found = await send(call('search_tools', { query: 'customer' }));
    expect(foundNames(found).sort()).toEqual(['deleteCustomer', 'getCustomer']);
    const result = (found.message as { result: { content: [{ text: string }]; structuredContent: unknown } }).result;
    expect(JSON.parse(result.content[0].text)).toEqual(result.structuredContent);
    expect(
      (result.structuredContent as { tools: Array<{ inputSchema: unknown }> }).tools[0]!.inputSchema,
    ).toMatchObject({ type: 'object' });
    // createOrder needs a scope the agent lacks; archiveCustomer would write and may not.
    expect(foundNames(await send(call('search_tools', { query: 'place an order', limit: 20 })))).toEqual([]);
    expect(foundNames(await send(call('search_tools', { query: 'archive customer' })))).not.toContain(
      'archiveCustomer',
    );
    expect(await used()).toBe(0);
  });

  it('call_tool runs the named tool through the pipeline: forwarded, charged, audited as that tool via call_tool', async () => {
    const { send, forwarded, audited, used } = await setup('on');
    const answer = await send(call('call_tool', { name: 'getCustomer', arguments: { id: '7' } }));
    expect(answer.failure).toBeUndefined();
    expect(forwarded).toEqual(['getCustomer']);
    expect(audited.at(-1)).toMatchObject({ tool: 'getCustomer', via: 'call_tool', outcome: 'ok' });
    expect(await used()).toBeGreaterThan(0);
  });

  it('call_tool refuses what tools/call refuses, and forwards nothing', async () => {
    const { send, forwarded, used } = await setup('on', { allowedTools: ['getCustomer', 'createOrder'] });
    expect(
      (await send(call('call_tool', { name: 'createOrder', arguments: { customerId: '1', sku: 'a', quantity: 1 } })))
        .failure,
    ).toMatchObject({ code: 'forbidden' });
    expect((await send(call('call_tool', { name: 'deleteCustomer', arguments: { id: '7' } }))).failure).toMatchObject({
      code: 'not-allowlisted',
    });
    expect((await send(call('call_tool', { name: 'archiveCustomer', arguments: { id: '7' } }))).failure).toMatchObject({
      code: 'not-allowlisted',
    });
    expect(
      (await send(call('call_tool', { name: 'other_getCustomer', arguments: { id: '7' } }))).failure,
    ).toMatchObject({ code: 'unknown-tool' });
    expect((await send(call('call_tool', { name: 'getCustomer', arguments: { id: 7 } }))).failure).toMatchObject({
      code: 'invalid-arguments',
    });
    expect(forwarded).toEqual([]);
    expect(await used()).toBe(0);
  });

  it.each([
    ['an empty query', 'search_tools', { query: '  ' }],
    ['a 100 KB query', 'search_tools', { query: 'x'.repeat(100_000) }],
    ['limit 0', 'search_tools', { query: 'customer', limit: 0 }],
    ['limit 10,000', 'search_tools', { query: 'customer', limit: 10_000 }],
    ['call_tool naming call_tool', 'call_tool', { name: 'call_tool', arguments: {} }],
    ['call_tool naming search_tools', 'call_tool', { name: 'search_tools', arguments: { query: 'x' } }],
    ['arguments that are not an object', 'call_tool', { name: 'getCustomer', arguments: 'id=7' }],
    ['arguments as an array', 'call_tool', { name: 'getCustomer', arguments: ['7'] }],
  ])('refuses %s as invalid arguments, in the MCP way, forwarding and charging nothing', async (_, tool, args) => {
    const { send, forwarded, used } = await setup('on');
    const refused = await send(call(tool, args));
    expect(refused.status).toBe(200);
    expect(refused.failure).toMatchObject({ code: 'invalid-arguments' });
    expect((refused.message as { result: { isError: boolean } }).result.isError).toBe(true);
    expect(forwarded).toEqual([]);
    expect(await used()).toBe(0);
  });
});

describe('McpService in search mode, MCP 2026-07-28', () => {
  // A tool whose downstream marks a parameter x-mcp-header: a direct tools/call must mirror it in Mcp-Param-Region.
  const regional = {
    ...getCustomer,
    name: 'getRegion',
    routePattern: '/regions/{id}',
    parameterSources: { id: 'route' },
    inputSchema: { type: 'object', properties: { id: { type: 'string', 'x-mcp-header': 'Region' } }, required: ['id'] },
  };
  const { registry: marked } = buildToolRegistry([
    regional,
    getCustomer,
    { ...getCustomer, name: 'getSecret', confirm: true },
  ]);
  const envelope = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };

  async function modernSetup() {
    const store = createMemoryStore();
    const tokens = new TokenService({ signingKey: 's'.repeat(32) });
    const agents = new AgentService({ store, tokens });
    const forwarded: string[] = [];
    const service = new McpService({
      agents,
      sessions: store.sessions,
      sessionIdleMs: 60_000,
      toolSearch: new ToolSearchMode({ mode: 'on', threshold: 2, registry: () => marked }),
      toolCall: {
        registry: () => marked,
        budget: store.budget,
        forwarder: {
          forward: async (tool) => (
            forwarded.push(tool.name), { status: 200, headers: {}, body: { id: 'eu' }, durationMs: 1 }
          ),
        },
      },
      writeConfirmation: new WriteConfirmation({ key: Buffer.alloc(32, 1), redeemed: store.redeemed }),
      serverInfo: { name: 'tollgate', version: '0.0.0-test' },
      audit: () => undefined,
      isReady: async () => true,
    });
    const agent = await agents.create({ label: 'searcher', dailyTokenBudget: 10_000 });
    const authorization = `Bearer ${(await agents.issueToken(agent.agentId, 1)).token}`;
    const send = (
      name: string,
      args: unknown,
      headers: Record<string, string> = {},
      extra: Record<string, unknown> = {},
    ) =>
      answered(
        service.post({
          authorization,
          sessionId: undefined,
          protocolVersion: '2026-07-28',
          headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': name, ...headers },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/call',
            params: {
              name,
              arguments: args,
              ...extra,
              _meta: { ...envelope, 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } },
            },
          }),
        }),
      );
    return { send, forwarded };
  }

  it("call_tool is checked against its own schema, not the wrapped tool's x-mcp-header parameters (the client cannot know them)", async () => {
    const { send, forwarded } = await modernSetup();
    const wrapped = await send('call_tool', { name: 'getRegion', arguments: { id: 'eu' } });
    expect(wrapped.failure).toBeUndefined();
    expect(forwarded).toEqual(['getRegion']);
  });

  it('a direct tools/call of the marked tool still needs its Mcp-Param header', async () => {
    const { send, forwarded } = await modernSetup();
    const bare = await send('getRegion', { id: 'eu' });
    expect(bare.status).toBe(400);
    expect(bare.failure).toMatchObject({ code: 'header-mismatch' });
    await send('getRegion', { id: 'eu' }, { 'mcp-param-region': 'eu' });
    expect(forwarded).toEqual(['getRegion']);
  });

  it('write confirmation through call_tool: the question is about the wrapped tool, and the retried call_tool carries the answer', async () => {
    const { send, forwarded } = await modernSetup();
    const wrapped = { name: 'getSecret', arguments: { id: '7' } };
    const asked = (await send('call_tool', wrapped)).message as {
      result: {
        resultType: string;
        requestState: string;
        inputRequests: Record<string, { params: { message: string } }>;
      };
    };
    expect(asked.result.resultType).toBe('input_required');
    expect(asked.result.inputRequests['tollgate/confirm']!.params.message).toMatch(/getSecret/);
    expect(forwarded).toEqual([]);
    const inputResponses = { 'tollgate/confirm': { action: 'accept', content: { confirm: true } } };
    const altered = await send(
      'call_tool',
      { name: 'getSecret', arguments: { id: '8' } },
      {},
      { inputResponses, requestState: asked.result.requestState },
    );
    expect(altered.failure).toMatchObject({ code: 'invalid-request-state' });
    await send('call_tool', wrapped, {}, { inputResponses, requestState: asked.result.requestState });
    expect(forwarded).toEqual(['getSecret']);
  });
});
