import { describe, expect, it } from 'vitest';
import { AgentService } from '../agents/agent-service.js';
import type { AuditEvent } from '../audit/trail.js';
import { TokenService } from '../auth/token-service.js';
import type { Forwarder } from '../forward/forwarder.js';
import { createMemoryStore } from '../store/memory/index.js';
import type { SessionStore } from '../store/ports.js';
import { createOrder, getCustomer } from '../testing/tool-fixtures.js';
import { buildToolRegistry } from '../tools/registry.js';
import type { McpAnswer, McpReply } from './mcp-messages.js';
import { McpService } from './mcp-service.js';

const { registry } = buildToolRegistry([getCustomer, createOrder]);
const VERSION = '2026-07-28';
const SERVER_INFO = { name: 'tollgate', version: '0.0.0-test' };
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': VERSION,
  'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** A session store that fails the test on any use: the stateless era must not read or write one. */
const noSessions: SessionStore = {
  newSessionId: () => {
    throw new Error('session id made');
  },
  create: () => Promise.reject(new Error('session created')),
  touch: () => Promise.reject(new Error('session read')),
  delete: () => Promise.reject(new Error('session deleted')),
};

async function setup(options: { forwarder?: Forwarder; budget?: number } = {}) {
  const store = createMemoryStore();
  const tokens = new TokenService({ signingKey: 's'.repeat(32) });
  const agents = new AgentService({ store, tokens });
  const forwarder: Forwarder = options.forwarder ?? {
    forward: async () => ({ status: 200, headers: {}, body: { ok: true }, durationMs: 1 }),
  };
  const audited: AuditEvent[] = [];
  const service = new McpService({
    agents,
    sessions: noSessions,
    sessionIdleMs: 60_000,
    toolCall: { registry: () => registry, budget: store.budget, forwarder },
    serverInfo: SERVER_INFO,
    audit: (event) => audited.push(event),
    isReady: async () => true,
  });
  const agent = await agents.create({
    label: 'alice',
    dailyTokenBudget: options.budget ?? 10_000,
    scopes: ['customers:read', 'orders:write'],
  });
  const token = `Bearer ${(await agents.issueToken(agent.agentId, 1)).token}`;
  return { service, audited, token, agentId: agent.agentId, store };
}

/** A 2026-07-28 request with its envelope and the headers that mirror it; `headers` overrides them (undefined removes one). */
function modern(
  method: string,
  params: Record<string, unknown> = {},
  headers: Record<string, string | undefined> = {},
  envelope: Record<string, unknown> = ENVELOPE,
) {
  const mirrored: Record<string, string | undefined> = { 'mcp-protocol-version': VERSION, 'mcp-method': method };
  if (typeof params.name === 'string') mirrored['mcp-name'] = params.name;
  const all = Object.fromEntries(
    Object.entries({ ...mirrored, ...headers }).filter(([, value]) => value !== undefined),
  ) as Record<string, string>;
  return {
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params: { ...params, _meta: envelope } }),
    headers: all,
    protocolVersion: all['mcp-protocol-version'],
  };
}

async function answered(reply: Promise<McpReply>): Promise<McpAnswer> {
  const settled = await reply;
  if (settled.kind === 'pending') return settled.answer;
  if (settled.kind !== 'answer') throw new Error(`expected an answer, got ${settled.kind}`);
  return settled;
}

function post(service: McpService, token: string, request: ReturnType<typeof modern>, sessionId?: string) {
  return answered(service.post({ authorization: token, sessionId, ...request }));
}

const result = (reply: McpAnswer) => (reply.message as { result: Record<string, unknown> }).result;
const error = (reply: McpAnswer) =>
  (reply.message as { error: { code: number; message: string; data?: unknown } }).error;

describe('McpService: MCP 2026-07-28 requests (no session)', () => {
  it('server/discover: every revision served, capabilities with extensions, serverInfo in _meta, resultType', async () => {
    const { service, token } = await setup();
    const reply = await post(service, token, modern('server/discover'));
    expect(reply.status).toBe(200);
    expect(reply.sessionId).toBeUndefined();
    expect(result(reply)).toEqual({
      resultType: 'complete',
      supportedVersions: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'],
      capabilities: { tools: { listChanged: false }, extensions: {} },
      ttlMs: expect.any(Number),
      cacheScope: 'private',
      _meta: { 'io.modelcontextprotocol/serverInfo': SERVER_INFO },
    });
  });

  it('tools/list: the caller\'s tools in the registry\'s order, ttlMs and cacheScope "private", resultType and serverInfo', async () => {
    const { service, token } = await setup();
    const first = result(await post(service, token, modern('tools/list')));
    expect(first).toMatchObject({
      resultType: 'complete',
      ttlMs: 60_000,
      cacheScope: 'private',
      _meta: { 'io.modelcontextprotocol/serverInfo': SERVER_INFO },
    });
    const names = (first.tools as Array<{ name: string }>).map((tool) => tool.name);
    expect(names.length).toBeGreaterThan(0);
    const again = result(await post(service, token, modern('tools/list')));
    expect((again.tools as Array<{ name: string }>).map((tool) => tool.name)).toEqual(names);
  });

  it('tools/call: through the pipeline, audited once with no session, the result completed', async () => {
    const { service, token, audited } = await setup();
    const reply = await post(service, token, modern('tools/call', { name: 'getCustomer', arguments: { id: 'c1' } }));
    expect(reply.status).toBe(200);
    expect(result(reply)).toMatchObject({
      resultType: 'complete',
      structuredContent: { ok: true },
      _meta: { 'io.modelcontextprotocol/serverInfo': SERVER_INFO },
    });
    expect(audited).toHaveLength(1);
    expect(audited[0]).toMatchObject({ outcome: 'ok', sessionId: null, tool: 'getCustomer' });
  });

  it('invalid arguments: a tool error result (as from 2025-11-25), completed', async () => {
    const { service, token } = await setup();
    const reply = await post(
      service,
      token,
      modern('tools/call', { name: 'getCustomer', arguments: { id: 5, extra: true } }),
    );
    expect(result(reply)).toMatchObject({ resultType: 'complete', isError: true });
  });

  it.each([
    [
      'MCP-Protocol-Version missing',
      modern('tools/list', {}, { 'mcp-protocol-version': undefined }),
      400,
      -32020,
      /MCP-Protocol-Version header is required/,
    ],
    [
      'Mcp-Method missing',
      modern('tools/list', {}, { 'mcp-method': undefined }),
      400,
      -32020,
      /Mcp-Method header is required/,
    ],
    [
      'Mcp-Method disagreeing',
      modern('tools/list', {}, { 'mcp-method': 'tools/call' }),
      400,
      -32020,
      /Mcp-Method header value "tools\/call" does not match body value "tools\/list"/,
    ],
    [
      'Mcp-Name missing on tools/call',
      modern('tools/call', { name: 'getCustomer', arguments: { id: 'c1' } }, { 'mcp-name': undefined }),
      400,
      -32020,
      /Mcp-Name header is required/,
    ],
    [
      'Mcp-Name disagreeing',
      modern('tools/call', { name: 'getCustomer', arguments: { id: 'c1' } }, { 'mcp-name': 'createOrder' }),
      400,
      -32020,
      /does not match/,
    ],
    [
      'Mcp-Name malformed Base64',
      modern('tools/call', { name: 'getCustomer', arguments: { id: 'c1' } }, { 'mcp-name': '=?base64?***?=' }),
      400,
      -32020,
      /not valid Base64/,
    ],
    [
      'header and envelope versions disagreeing',
      modern('tools/list', {}, { 'mcp-protocol-version': '2025-11-25' }),
      400,
      -32020,
      /does not match body value "2026-07-28"/,
    ],
    [
      'a version not served',
      modern(
        'tools/list',
        {},
        { 'mcp-protocol-version': '2099-01-01' },
        { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' },
      ),
      400,
      -32022,
      /Unsupported protocol version/,
    ],
    [
      'the headers without the envelope',
      { ...modern('tools/list'), body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }) },
      400,
      -32602,
      /needs params._meta/,
    ],
    [
      'the envelope without clientCapabilities',
      modern('tools/list', {}, {}, { 'io.modelcontextprotocol/protocolVersion': VERSION }),
      400,
      -32602,
      /clientCapabilities"\] is required/,
    ],
    [
      'the envelope on initialize',
      modern('initialize', {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 't', version: '1' },
      }),
      404,
      -32601,
      /initialize is not a method of 2026-07-28/,
    ],
    ['ping (removed in 2026-07-28)', modern('ping'), 404, -32601, /Method not found: ping/],
    ['logging/setLevel (removed)', modern('logging/setLevel', { level: 'info' }), 404, -32601, /Method not found/],
  ])('%s: HTTP %i with %i, nothing charged, no session touched', async (_label, request, status, code, message) => {
    const { service, token, store, agentId } = await setup();
    const reply = await post(service, token, request);
    expect(reply.status).toBe(status);
    expect(error(reply)).toMatchObject({ code, message: expect.stringMatching(message) });
    expect(await store.budget.usage(agentId, new Date())).toMatchObject({ used: 0, reserved: 0 });
  });

  it('-32022 lists the versions served and the one asked for', async () => {
    const { service, token } = await setup();
    const request = modern(
      'tools/list',
      {},
      { 'mcp-protocol-version': '2025-11-25' },
      { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': '2025-11-25' },
    );
    const reply = await post(service, token, request);
    expect(error(reply)).toMatchObject({
      code: -32022,
      data: { supported: expect.arrayContaining(['2026-07-28', '2025-11-25']), requested: '2025-11-25' },
    });
  });

  it('a 2026-07-28 request with a session id: 400 naming the header, no session read', async () => {
    const { service, token } = await setup();
    const reply = await post(service, token, modern('tools/list'), 'A'.repeat(32));
    expect(reply.status).toBe(400);
    expect(error(reply).message).toMatch(/Mcp-Session-Id has no place/);
  });

  it('a refused tools/call is audited once as invalid-request, and the pipeline never ran', async () => {
    let forwarded = 0;
    const { service, token, audited } = await setup({
      forwarder: { forward: async () => ((forwarded += 1), { status: 200, headers: {}, body: {}, durationMs: 1 }) },
    });
    await post(
      service,
      token,
      modern('tools/call', { name: 'getCustomer', arguments: { id: 'c1' } }, { 'mcp-name': 'other' }),
    );
    expect(forwarded).toBe(0);
    expect(audited).toMatchObject([{ outcome: 'invalid-request' }]);
  });

  it('a tool parameter marked x-mcp-header must arrive mirrored in Mcp-Param-*: a missing or different header is -32020, the call never forwarded', async () => {
    const marked = {
      ...getCustomer,
      name: 'markedCustomer',
      inputSchema: {
        ...getCustomer.inputSchema,
        properties: {
          ...getCustomer.inputSchema.properties,
          id: { type: 'string', description: 'Customer id', 'x-mcp-header': 'Customer' },
        },
      },
    };
    const { registry: withMark } = buildToolRegistry([marked]);
    let forwarded = 0;
    const store = createMemoryStore();
    const agents = new AgentService({ store, tokens: new TokenService({ signingKey: 's'.repeat(32) }) });
    const service = new McpService({
      agents,
      sessions: noSessions,
      sessionIdleMs: 1,
      toolCall: {
        registry: () => withMark,
        budget: store.budget,
        forwarder: { forward: async () => ((forwarded += 1), { status: 200, headers: {}, body: {}, durationMs: 1 }) },
      },
      serverInfo: SERVER_INFO,
      audit: () => undefined,
      isReady: async () => true,
    });
    const agent = await agents.create({ label: 'm', dailyTokenBudget: 10_000 });
    const token = `Bearer ${(await agents.issueToken(agent.agentId, 1)).token}`;
    const call = (headers: Record<string, string | undefined>) =>
      post(service, token, modern('tools/call', { name: 'markedCustomer', arguments: { id: 'c1' } }, headers));
    expect(error(await call({}))).toMatchObject({
      code: -32020,
      message: expect.stringMatching(/Mcp-Param-customer header is required/),
    });
    expect((await call({ 'mcp-param-customer': 'c2' })).status).toBe(400);
    expect(forwarded).toBe(0);
    expect(result(await call({ 'mcp-param-customer': 'c1' }))).toMatchObject({ resultType: 'complete' });
    expect(forwarded).toBe(1);
  });

  it('the Base64 sentinel form of Mcp-Name is decoded before comparing', async () => {
    const { service, token } = await setup();
    const encoded = `=?base64?${Buffer.from('getCustomer').toString('base64')}?=`;
    const reply = await post(
      service,
      token,
      modern('tools/call', { name: 'getCustomer', arguments: { id: 'c1' } }, { 'mcp-name': encoded }),
    );
    expect(result(reply)).toMatchObject({ structuredContent: { ok: true } });
  });

  it('without the envelope and a 2026 header, the session era answers as before (initialize opens a session)', async () => {
    const store = createMemoryStore();
    const tokens = new TokenService({ signingKey: 's'.repeat(32) });
    const agents = new AgentService({ store, tokens });
    const service = new McpService({
      agents,
      sessions: store.sessions,
      sessionIdleMs: 60_000,
      toolCall: {
        registry: () => registry,
        budget: store.budget,
        forwarder: { forward: async () => ({ status: 200, headers: {}, body: {}, durationMs: 1 }) },
      },
      serverInfo: SERVER_INFO,
      audit: () => undefined,
      isReady: async () => true,
    });
    const agent = await agents.create({ label: 'bob', dailyTokenBudget: 10 });
    const token = `Bearer ${(await agents.issueToken(agent.agentId, 1)).token}`;
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    const reply = await answered(
      service.post({ authorization: token, sessionId: undefined, protocolVersion: undefined, body }),
    );
    expect(reply.sessionId).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(result(reply)).not.toHaveProperty('resultType');
  });
});
