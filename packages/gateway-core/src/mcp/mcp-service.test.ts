import { describe, expect, it, vi } from 'vitest';
import { AgentService } from '../agents/agent-service.js';
import type { AuditEvent } from '../audit/trail.js';
import { TokenService } from '../auth/token-service.js';
import { DownstreamCallError, StoreUnavailableError } from '../errors.js';
import type { Forwarder } from '../forward/forwarder.js';
import { SettlementQueue } from '../pipeline/settlement-queue.js';
import { createMemoryStore } from '../store/memory/index.js';
import type { SessionStore, StreamStore } from '../store/ports.js';
import { createOrder, getCustomer } from '../testing/tool-fixtures.js';
import { buildToolRegistry } from '../tools/registry.js';
import type { McpAnswer, McpPost, McpReply } from './mcp-messages.js';
import { streamedMessage } from './mcp-replies.js';
import { McpService } from './mcp-service.js';

const IDLE_MS = 60_000;
const { registry } = buildToolRegistry([getCustomer, createOrder]);

const initializeParams = (protocolVersion = '2024-11-05') => ({
  protocolVersion,
  capabilities: {},
  clientInfo: { name: 'test-client', version: '1.0.0' },
});

/**
 * The service over the memory store, with real agents and tokens, a clock
 * the test moves, a count of session lookups and the audit events it wrote.
 */
async function setup(
  options: {
    settled?: boolean;
    ready?: boolean;
    forwarder?: Forwarder;
    errorDelivery?: 'mcp' | 'http-status';
    budget?: number;
    resumeWindowMs?: number;
    maxSessionsPerAgent?: number;
    maxConcurrentCallsPerAgent?: number;
    /** Wraps the memory store's kept stream answers (e.g. to refuse the keep). */
    streams?: (streams: StreamStore) => StreamStore;
  } = {},
) {
  let now = Date.parse('2025-05-01T12:00:00Z');
  const clock = () => new Date(now);
  const store = createMemoryStore({ clock: () => now });
  let lookups = 0;
  const sessions: SessionStore = {
    newSessionId: (agentId) => store.sessions.newSessionId(agentId),
    create: (session, ttl, max) => store.sessions.create(session, ttl, max),
    touch: (id, ttl) => {
      lookups += 1;
      return store.sessions.touch(id, ttl);
    },
    delete: (id) => store.sessions.delete(id),
  };
  const tokens = new TokenService({ signingKey: 's'.repeat(32), clock });
  const agents = new AgentService({ store, tokens, clock });
  const settlements = options.settled ? new SettlementQueue({ ledger: store.budget }) : undefined;
  const forwarder: Forwarder = options.forwarder ?? {
    forward: async () => ({ status: 200, headers: {}, body: { ok: true }, durationMs: 1 }),
  };
  const audited: AuditEvent[] = [];
  const service = new McpService({
    agents,
    sessions,
    sessionIdleMs: IDLE_MS,
    toolCall: { registry: () => registry, budget: store.budget, settlements, forwarder, clock },
    serverInfo: { name: 'tollgate', version: '0.0.0-test' },
    audit: (event) => audited.push(event),
    isReady: async () => options.ready ?? true,
    errorDelivery: options.errorDelivery,
    streams: options.streams ? options.streams(store.streams) : store.streams,
    resumeWindowMs: options.resumeWindowMs,
    maxSessionsPerAgent: options.maxSessionsPerAgent,
    maxConcurrentCallsPerAgent: options.maxConcurrentCallsPerAgent,
  });
  const tokenFor = async (label: string, scopes: string[] = []) => {
    const agent = await agents.create({ label, dailyTokenBudget: options.budget ?? 10_000, scopes });
    return { agentId: agent.agentId, token: `Bearer ${(await agents.issueToken(agent.agentId, 1)).token}` };
  };
  const usage = async (agentId: string) => {
    await settlements?.settled(agentId);
    return store.budget.usage(agentId, clock());
  };
  return { service, agents, audited, usage, tokenFor, advance: (ms: number) => (now += ms), lookups: () => lookups };
}

type Service = McpService;

/** The answer of a request, waiting for a tools/call's. */
async function answered(reply: McpReply | Promise<McpReply>): Promise<McpAnswer> {
  const settled = await reply;
  if (settled.kind === 'pending') return settled.answer;
  if (settled.kind !== 'answer') throw new Error(`expected an answer, got ${settled.kind}`);
  return settled;
}

function rpc(method: string, params?: Record<string, unknown>, id = 1): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
}

function send(
  service: Service,
  authorization: string,
  body: string,
  headers: Partial<McpPost> = {},
): Promise<McpReply> {
  return service.post({ authorization, sessionId: undefined, protocolVersion: undefined, body, ...headers });
}

async function initialize(service: Service, authorization: string, version = '2024-11-05') {
  const reply = await answered(send(service, authorization, rpc('initialize', initializeParams(version))));
  return {
    sessionId: reply.sessionId!,
    result: (reply.message as { result: { protocolVersion: string } }).result,
    reply,
  };
}

/** A request inside a session; `ping` unless told otherwise. */
function inSession(
  service: Service,
  authorization: string,
  sessionId: string | undefined,
  protocolVersion?: string,
  body = rpc('ping'),
) {
  return answered(send(service, authorization, body, { sessionId, protocolVersion }));
}

describe('McpService', () => {
  it('opens a session in the version the client asked for, or the newest it supports', async () => {
    const { service, tokenFor } = await setup();
    const { token } = await tokenFor('alice');
    const current = await initialize(service, token, '2025-06-18');
    expect(current.sessionId).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(current.result).toMatchObject({
      protocolVersion: '2025-06-18',
      serverInfo: { name: 'tollgate' },
      capabilities: { tools: {} },
    });

    const unknown = await initialize(service, token, '2099-01-01');
    expect(unknown.result.protocolVersion).toBe('2025-11-25');
    expect(unknown.sessionId).not.toBe(current.sessionId);
  });

  it('refuses initialize params without clientInfo with -32602', async () => {
    const { service, tokenFor } = await setup();
    const { token } = await tokenFor('alice');
    const reply = await answered(
      send(service, token, rpc('initialize', { protocolVersion: '2024-11-05', capabilities: {} })),
    );
    expect(reply.failure).toMatchObject({ code: 'invalid-input', httpStatus: 400, jsonRpcCode: -32602 });
  });

  it("resumes the agent's own session in its negotiated version", async () => {
    const { service, tokenFor } = await setup();
    const { token } = await tokenFor('alice');
    const { sessionId } = await initialize(service, token, '2025-03-26');
    const listed = await inSession(service, token, sessionId, undefined, rpc('tools/list', {}));
    // Annotations arrived in 2025-03-26: the list speaks the session's version.
    expect(
      (listed.message as { result: { tools: Array<{ annotations?: unknown }> } }).result.tools[0]!.annotations,
    ).toBeDefined();
    expect((await inSession(service, token, sessionId, '2025-03-26')).failure).toBeUndefined();
  });

  it("answers another agent's session id with 404, exactly like an unknown one", async () => {
    const { service, tokenFor } = await setup();
    const alice = await tokenFor('alice');
    const bob = await tokenFor('bob');
    const { sessionId } = await initialize(service, alice.token);
    const stolen = await inSession(service, bob.token, sessionId);
    expect(stolen.failure).toMatchObject({ code: 'session-not-found', httpStatus: 404 });
    const unknown = await inSession(service, bob.token, 'A'.repeat(32));
    expect(unknown.message).toEqual(stolen.message);
    // Bob's attempt does not end Alice's session.
    expect((await inSession(service, alice.token, sessionId)).failure).toBeUndefined();
  });

  it('requires a session id: 400 / -32600 when it is missing or empty', async () => {
    const { service, tokenFor, lookups } = await setup();
    const { token } = await tokenFor('alice');
    for (const missing of [undefined, '']) {
      const reply = await inSession(service, token, missing);
      expect(reply.failure).toMatchObject({ code: 'invalid-request', httpStatus: 400, jsonRpcCode: -32600 });
    }
    expect(lookups()).toBe(0);
  });

  it('answers malformed or oversized session ids with 404 without asking the store', async () => {
    const { service, tokenFor, lookups } = await setup();
    const { token } = await tokenFor('alice');
    for (const id of [
      'short',
      'x'.repeat(33),
      'x'.repeat(10_000),
      'a/b'.padEnd(32, 'c'),
      'tollgate:session:*'.padEnd(32, '*'),
      ' '.repeat(32),
    ]) {
      expect((await inSession(service, token, id)).failure?.code).toBe('session-not-found');
    }
    expect(lookups()).toBe(0);
  });

  it('expires a session after the idle time, and each request extends it', async () => {
    const { service, tokenFor, advance } = await setup();
    const { token } = await tokenFor('alice');
    const { sessionId } = await initialize(service, token);
    advance(IDLE_MS - 1);
    await inSession(service, token, sessionId);
    advance(IDLE_MS - 1);
    expect((await inSession(service, token, sessionId)).failure).toBeUndefined();
    advance(IDLE_MS);
    expect((await inSession(service, token, sessionId)).failure?.code).toBe('session-not-found');
  });

  it("past the agent's session cap, ends its least recently used session; other agents keep theirs", async () => {
    const { service, tokenFor, advance } = await setup({ maxSessionsPerAgent: 2 });
    const alice = await tokenFor('alice');
    const bob = await tokenFor('bob');
    const bobs = await initialize(service, bob.token);
    const first = await initialize(service, alice.token);
    advance(10);
    const second = await initialize(service, alice.token);
    advance(10);
    await inSession(service, alice.token, first.sessionId); // the first is now the more recently used
    advance(10);
    const third = await initialize(service, alice.token);
    expect((await inSession(service, alice.token, second.sessionId)).failure).toMatchObject({
      code: 'session-not-found',
      httpStatus: 404,
    });
    for (const { sessionId } of [first, third])
      expect((await inSession(service, alice.token, sessionId)).failure).toBeUndefined();
    expect((await inSession(service, bob.token, bobs.sessionId)).failure).toBeUndefined();
  });

  it('refuses a session cap that is not a positive integer', async () => {
    await expect(setup({ maxSessionsPerAgent: 0 })).rejects.toThrow(/maxSessionsPerAgent must be a positive integer/);
  });

  it('ends a session: the id is then unknown; only its owner can end it', async () => {
    const { service, tokenFor } = await setup();
    const alice = await tokenFor('alice');
    const bob = await tokenFor('bob');
    const { sessionId } = await initialize(service, alice.token);
    expect(
      await answered(service.end({ authorization: bob.token, sessionId, protocolVersion: undefined })),
    ).toMatchObject({ failure: { code: 'session-not-found' } });
    expect(await service.end({ authorization: alice.token, sessionId, protocolVersion: undefined })).toEqual({
      kind: 'ended',
    });
    expect((await inSession(service, alice.token, sessionId)).failure?.code).toBe('session-not-found');
  });

  it('accepts any supported MCP-Protocol-Version header in a session, and refuses an unsupported one with 400', async () => {
    const { service, tokenFor } = await setup();
    const { token } = await tokenFor('alice');
    const { sessionId } = await initialize(service, token, '2025-06-18');
    for (const header of ['2025-03-26', '2025-11-25'])
      expect((await inSession(service, token, sessionId, header)).failure).toBeUndefined();
    for (const header of ['2099-01-01', 'garbage']) {
      expect(await inSession(service, token, sessionId, header)).toMatchObject({
        status: 400,
        failure: { code: 'invalid-request', httpStatus: 400 },
      });
    }
  });

  it('answers ping with an empty result', async () => {
    const { service, tokenFor } = await setup();
    const { token } = await tokenFor('alice');
    const { sessionId } = await initialize(service, token);
    expect((await inSession(service, token, sessionId)).message).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
  });

  it('lists the tools the token allows, and calls them', async () => {
    const { service, tokenFor } = await setup();
    const writer = await tokenFor('writer', ['orders:write']);
    const reader = await tokenFor('reader');
    const names = async (token: string) => {
      const { sessionId } = await initialize(service, token);
      const listed = await inSession(service, token, sessionId, undefined, rpc('tools/list', {}));
      return (listed.message as { result: { tools: Array<{ name: string }> } }).result.tools.map((tool) => tool.name);
    };
    expect(await names(writer.token)).toEqual(['getCustomer', 'createOrder']);
    expect(await names(reader.token)).toEqual(['getCustomer']);

    const { sessionId } = await initialize(service, writer.token);
    const called = await inSession(
      service,
      writer.token,
      sessionId,
      undefined,
      rpc('tools/call', { name: 'createOrder', arguments: { customerId: '1', sku: 'A', quantity: 2 } }),
    );
    expect((called.message as { result: unknown }).result).toEqual({
      content: [{ type: 'text', text: '{"ok":true}' }],
    });
    expect(called.serverTiming).toMatch(/^gateway;dur=\d+\.\d\d, downstream;dur=1\.00$/);
  });

  it('answers an unknown method with -32601 in a 200', async () => {
    const { service, tokenFor } = await setup();
    const { token } = await tokenFor('alice');
    const { sessionId } = await initialize(service, token);
    const reply = await inSession(service, token, sessionId, undefined, rpc('resources/list'));
    expect(reply.failure).toMatchObject({ code: 'method-not-found', httpStatus: 200, jsonRpcCode: -32601 });
    expect(reply.message).toMatchObject({ error: { code: -32601, message: 'Method not found: resources/list' } });
  });

  it('opens a new session for initialize even when it names one (a client starting over)', async () => {
    const { service, tokenFor } = await setup();
    const { token } = await tokenFor('alice');
    const first = await initialize(service, token);
    const again = await answered(
      send(service, token, rpc('initialize', initializeParams()), { sessionId: first.sessionId }),
    );
    expect(again.failure).toBeUndefined();
    expect(again.sessionId).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(again.sessionId).not.toBe(first.sessionId);
  });

  it('accepts notifications without an answer, once the session checks out', async () => {
    const { service, tokenFor } = await setup();
    const { token } = await tokenFor('alice');
    const { sessionId } = await initialize(service, token);
    const notification = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(await send(service, token, notification, { sessionId })).toEqual({ kind: 'accepted' });
    expect(await answered(send(service, token, notification, { sessionId: 'A'.repeat(32) }))).toMatchObject({
      failure: { code: 'session-not-found' },
    });
  });

  it('authenticates before judging the message: an invalid body from a stranger is 401', async () => {
    const { service, tokenFor } = await setup();
    expect(await answered(send(service, 'Bearer nope', '{"not json'))).toMatchObject({
      failure: { code: 'unauthorized', httpStatus: 401 },
    });
    const { token } = await tokenFor('alice');
    expect(await answered(send(service, token, '{"not json'))).toMatchObject({
      failure: { code: 'parse-error', httpStatus: 400 },
      message: { id: null },
    });
  });

  it('verifies credentials without a store read, and post trusts the claims it is given', async () => {
    const { service, tokenFor } = await setup();
    const { token, agentId } = await tokenFor('alice');
    expect(await service.verifyCredentials(token)).toEqual({ ok: true, claims: expect.objectContaining({ agentId }) });
    const refused = await service.verifyCredentials('Bearer forged');
    expect(refused).toMatchObject({
      ok: false,
      answer: { status: 401, failure: { code: 'unauthorized' }, message: { id: null } },
    });
    const verified = await service.verifyCredentials(token);
    if (!verified.ok) throw new Error('expected the token to verify');
    // Given claims spare post the signature check: the header is not looked at again.
    const reply = await answered(
      send(service, 'Bearer not-checked-again', rpc('initialize', initializeParams()), { claims: verified.claims }),
    );
    expect(reply).toMatchObject({ status: 200, sessionId: expect.any(String) });
  });

  it.each(['2024-11-05', '2025-11-25'])(
    'stops a call the client cancels with notifications/cancelled (%s): client-gone, nothing charged',
    async (version) => {
      let seen: AbortSignal | undefined;
      const forwarder: Forwarder = {
        forward: (_tool, _args, signal) =>
          new Promise((_, reject) => {
            seen = signal;
            signal?.addEventListener('abort', () => reject(new Error('aborted by the caller')));
          }),
      };
      const { service, tokenFor, audited, usage } = await setup({ forwarder });
      const { token, agentId } = await tokenFor('alice');
      const { sessionId } = await initialize(service, token, version);
      const call = inSession(
        service,
        token,
        sessionId,
        version,
        rpc('tools/call', { name: 'getCustomer', arguments: { id: '7' } }, 41),
      );
      await vi.waitFor(() => expect(seen).toBeDefined());
      // Another session's notification with the same id, and an unknown id, stop nothing.
      const other = await initialize(service, token, version);
      const cancel = (session: string, requestId: unknown) =>
        send(
          service,
          token,
          JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId } }),
          { sessionId: session, protocolVersion: version },
        );
      expect(await cancel(other.sessionId, 41)).toEqual({ kind: 'accepted' });
      expect(await cancel(sessionId, '41')).toEqual({ kind: 'accepted' });
      expect(seen?.aborted).toBe(false);
      expect(await cancel(sessionId, 41)).toEqual({ kind: 'accepted' });

      await call;
      expect(seen?.aborted).toBe(true);
      expect(audited.filter((event) => event.kind === 'tool-call')).toEqual([
        expect.objectContaining({
          outcome: 'client-gone',
          agentId,
          tool: 'getCustomer',
          tokensCharged: 0,
          detail: expect.any(String),
        }),
      ]);
      expect(await usage(agentId)).toMatchObject({ used: 0, reserved: 0 });
    },
  );

  it('refuses everything while not ready, and audits a refused tools/call with its agent and tool (issue 25, finding 16)', async () => {
    const { service, tokenFor, audited } = await setup({ ready: false });
    const { token, agentId } = await tokenFor('alice');
    expect(await answered(send(service, token, rpc('initialize', initializeParams())))).toMatchObject({
      failure: { code: 'not-ready', httpStatus: 503 },
    });
    await answered(send(service, token, rpc('tools/call', { name: 'getCustomer', arguments: { id: '7' } })));
    // A forged token is still refused as not ready, and names nobody.
    const forged = await answered(
      send(service, 'Bearer forged', rpc('tools/call', { name: 'getCustomer', arguments: { id: '7' } })),
    );
    expect(forged).toMatchObject({ failure: { code: 'not-ready' } });
    expect(audited).toEqual([
      expect.objectContaining({
        kind: 'tool-call',
        outcome: 'unavailable',
        agentId,
        tool: 'getCustomer',
        httpStatus: 503,
        jsonRpcCode: -32003,
      }),
      expect.objectContaining({
        kind: 'tool-call',
        outcome: 'unavailable',
        agentId: null,
        tool: null,
        httpStatus: 503,
        jsonRpcCode: -32003,
      }),
    ]);
  });

  it('audits every tools/call exactly once, with what each step learnt', async () => {
    const { service, tokenFor, audited } = await setup();
    const { token, agentId } = await tokenFor('alice');
    const { sessionId } = await initialize(service, token);
    const call = (name: string, args: unknown, session: string | undefined = sessionId) =>
      inSession(service, token, session, undefined, rpc('tools/call', { name, arguments: args }));
    await call('getCustomer', { id: '7' });
    await call('createOrder', { customerId: '1', sku: 'A', quantity: 1 });
    await call('getCustomer', { id: 7 });
    await call('getCustomer', { id: '7' }, 'A'.repeat(32));
    await answered(send(service, 'Bearer forged', rpc('tools/call', { name: 'getCustomer' }), { sessionId }));
    expect(
      audited
        .filter((event) => event.kind === 'tool-call')
        .map(({ outcome, agentId, sessionId, tool, httpStatus }) => ({
          outcome,
          agentId,
          sessionId,
          tool,
          httpStatus,
        })),
    ).toEqual([
      { outcome: 'ok', agentId, sessionId, tool: 'getCustomer', httpStatus: 200 },
      { outcome: 'forbidden', agentId, sessionId, tool: 'createOrder', httpStatus: 403 },
      { outcome: 'invalid-arguments', agentId, sessionId, tool: 'getCustomer', httpStatus: 400 },
      { outcome: 'invalid-request', agentId, sessionId: null, tool: 'getCustomer', httpStatus: 404 },
      { outcome: 'unauthorized', agentId: null, sessionId: null, tool: null, httpStatus: 401 },
    ]);
  });

  it('names the agent and tool of a call refused while the store is down, once the token checked out', async () => {
    const { service, tokenFor, audited, agents } = await setup();
    const { token, agentId } = await tokenFor('alice');
    const { sessionId } = await initialize(service, token);
    agents.agentFor = async () => {
      throw new StoreUnavailableError('store down');
    };
    const reply = await inSession(
      service,
      token,
      sessionId,
      undefined,
      rpc('tools/call', { name: 'getCustomer', arguments: { id: '7' } }),
    );
    expect(reply).toMatchObject({ status: 503, failure: { code: 'store-unavailable' } });
    expect(audited.at(-1)).toMatchObject({
      outcome: 'store-unavailable',
      agentId,
      tool: 'getCustomer',
      sessionId: null,
    });
    // An unknown tool name is caller input: never recorded.
    await inSession(
      service,
      token,
      sessionId,
      undefined,
      rpc('tools/call', { name: 'drop_everything', arguments: {} }),
    );
    expect(audited.at(-1)).toMatchObject({ agentId, tool: null });
  });

  it('puts the HTTP status of an answer sent after its stream started into the error data', () => {
    const { message } = streamedInput();
    expect(
      streamedMessage({
        kind: 'answer',
        message,
        status: 200,
        failure: {
          code: 'downstream-error',
          httpStatus: 502,
          jsonRpcCode: -32002,
          title: 't',
          detail: 'd',
          outcome: 'downstream-error',
          delivery: 'tool-error',
          expected: true,
        },
      }),
    ).toEqual({
      ...message,
      error: { ...message.error, data: { reason: 'timeout', httpStatus: 502 } },
    });
    const success = { jsonrpc: '2.0' as const, id: 1, result: {} };
    expect(streamedMessage({ kind: 'answer', message: success, status: 200 })).toBe(success);
  });

  describe('reserving ahead (the budget reservation leaves with the authentication reads)', () => {
    it('reserves once the agent was seen, uses that reservation, and settles the answer', async () => {
      const { service, tokenFor, usage } = await setup({ settled: true });
      const { token, agentId } = await tokenFor('alice');
      const { sessionId } = await initialize(service, token);
      const call = rpc('tools/call', { name: 'getCustomer', arguments: { id: '7' } });
      const pending = send(service, token, call, { sessionId });
      const reply = await pending;
      expect(reply.kind).toBe('pending');
      const done = await answered(reply);
      // One reservation, settled: nothing held, the answer charged.
      expect((await usage(agentId)).reserved).toBe(0);
      expect((await usage(agentId)).used).toBeGreaterThan(0);
      expect(done.failure).toBeUndefined();
    });

    it('gives the reservation back when the call is refused before its budget step, or before the pipeline', async () => {
      const { service, tokenFor, usage } = await setup({ settled: true });
      const { token, agentId } = await tokenFor('alice');
      const { sessionId } = await initialize(service, token);
      const refused = await inSession(
        service,
        token,
        sessionId,
        undefined,
        rpc('tools/call', { name: 'getCustomer', arguments: { id: 7 } }),
      );
      expect(refused.failure?.code).toBe('invalid-arguments');
      const noSession = await inSession(
        service,
        token,
        'A'.repeat(32),
        undefined,
        rpc('tools/call', { name: 'getCustomer', arguments: { id: '7' } }),
      );
      expect(noSession.failure?.code).toBe('session-not-found');
      expect(await usage(agentId)).toMatchObject({ used: 0, reserved: 0 });
    });
  });
});

function streamedInput() {
  return {
    message: {
      jsonrpc: '2.0' as const,
      id: 1,
      error: { code: -32002, message: 'Downstream timed out', data: { reason: 'timeout' } },
    },
  };
}

describe('McpService error delivery', () => {
  /** A downstream that answers 404 with a problem description for every call. */
  const notFound: Forwarder = {
    forward: async () => {
      throw new DownstreamCallError(
        'Downstream answered 404 for tool getCustomer',
        { reason: 'status', downstreamStatus: 404 },
        { answer: { title: 'Not Found', detail: 'customer 99999 not found' } },
      );
    },
  };
  const call = (name: string, args: unknown) => rpc('tools/call', { name, arguments: args });

  async function session(options: Parameters<typeof setup>[0], version = '2025-11-25', scopes: string[] = []) {
    const harness = await setup(options);
    const { token } = await harness.tokenFor('alice', scopes);
    const { sessionId } = await initialize(harness.service, token, version);
    return { ...harness, send: (body: string) => inSession(harness.service, token, sessionId, undefined, body) };
  }

  it('hands a downstream failure to the model as a tool error in HTTP 200, with its words and code', async () => {
    const { send, audited } = await session({ forwarder: notFound });
    const reply = await send(call('getCustomer', { id: '99999' }));
    expect(reply.status).toBe(200);
    expect(reply.message).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: {
        content: [
          {
            type: 'text',
            text: 'Downstream answered 404 for tool getCustomer: {"title":"Not Found","detail":"customer 99999 not found"}',
          },
        ],
        isError: true,
        _meta: {
          'io.tollgate/error': {
            code: -32002,
            kind: 'downstream-error',
            httpStatus: 502,
            reason: 'status',
            downstreamStatus: 404,
          },
        },
      },
    });
    // The audit trail and the metrics keep contract 7's classification.
    expect(audited.at(-1)).toMatchObject({
      outcome: 'downstream-error',
      httpStatus: 502,
      jsonRpcCode: -32002,
      downstreamStatus: 404,
    });
  });

  it('names each bad field in a tool error for 2025-11-25, and answers -32602 in HTTP 200 before it', async () => {
    const current = await (await session({})).send(call('getCustomer', { id: 7 }));
    expect(current.status).toBe(200);
    expect(current.message).toMatchObject({
      result: {
        isError: true,
        content: [{ text: expect.stringMatching(/^Invalid arguments for tool getCustomer: id /) }],
        _meta: { 'io.tollgate/error': { code: -32602, fields: [{ path: 'id' }] } },
      },
    });

    const older = await (await session({}, '2025-06-18')).send(call('getCustomer', { id: 7 }));
    expect(older).toMatchObject({
      status: 200,
      message: { error: { code: -32602, data: { fields: [{ path: 'id' }] } } },
    });
  });

  it('answers an unknown tool, a missing scope and an exhausted budget with JSON-RPC errors in HTTP 200 and data to act on', async () => {
    const unknown = await (await session({})).send(call('dropDatabase', {}));
    expect(unknown).toMatchObject({ status: 200, message: { error: { code: -32602 } } });

    const scoped = await (await session({})).send(call('createOrder', { customerId: '1', sku: 'A', quantity: 1 }));
    expect(scoped).toMatchObject({
      status: 200,
      message: { error: { code: -32003, data: { reason: 'missing-scopes', missingScopes: ['orders:write'] } } },
    });

    const broke = await (await session({ budget: 0 })).send(call('getCustomer', { id: '7' }));
    expect(broke).toMatchObject({
      status: 200,
      message: {
        error: {
          code: -32029,
          data: {
            remaining: 0,
            dailyTokenBudget: 0,
            resetsAt: expect.any(String),
            retryAfterSeconds: expect.any(Number),
          },
        },
      },
    });
    expect(
      (broke.message as { error: { data: { retryAfterSeconds: number } } }).error.data.retryAfterSeconds,
    ).toBeGreaterThan(0);
  });

  it('keeps HTTP statuses for credentials and sessions', async () => {
    const { service } = await setup({});
    expect(
      await answered(send(service, 'Bearer forged', call('getCustomer', {}), { sessionId: 'A'.repeat(32) })),
    ).toMatchObject({ status: 401 });
  });

  it('answers every error with its contract 7 HTTP status when asked to (http-status)', async () => {
    const failed = await (await session({ forwarder: notFound, errorDelivery: 'http-status' })).send(
      call('getCustomer', { id: '99999' }),
    );
    expect(failed).toMatchObject({
      status: 502,
      message: { error: { code: -32002, data: { reason: 'status', downstreamStatus: 404 } } },
    });
    // The downstream's own answer never travels as error data: it is not privacy-filtered there.
    expect(JSON.stringify(failed.message)).not.toContain('customer 99999');
    const invalid = await (await session({ errorDelivery: 'http-status' })).send(call('getCustomer', { id: 7 }));
    expect(invalid).toMatchObject({ status: 400, message: { error: { code: -32602 } } });
    const broke = await (await session({ budget: 0, errorDelivery: 'http-status' })).send(
      call('getCustomer', { id: '7' }),
    );
    expect(broke).toMatchObject({ status: 429, message: { error: { code: -32029 } } });
  });

  it('answers server/discover without a session with -32601 in HTTP 200, so newer clients fall back to initialize', async () => {
    const { service, tokenFor } = await setup();
    const { token } = await tokenFor('alice');
    const reply = await answered(send(service, token, rpc('server/discover')));
    expect(reply).toMatchObject({ status: 200, message: { error: { code: -32601 } } });
  });
});

describe('McpService resumable streams', () => {
  /** A downstream that answers when told to, and says whether it was asked to stop. */
  function slowDownstream() {
    let release = (): void => undefined;
    const answered = new Promise<void>((resolve) => (release = resolve));
    const seen: { aborted: boolean } = { aborted: false };
    const forwarder: Forwarder = {
      forward: async (_tool, _args, signal) => {
        await answered;
        seen.aborted = signal?.aborted ?? false;
        return { status: 200, headers: {}, body: { late: true }, durationMs: 1 };
      },
    };
    return { forwarder, release, seen };
  }
  const call = rpc('tools/call', { name: 'getCustomer', arguments: { id: '7' } }, 42);

  it('gives a 2025-03-26+ tools/call a stream id, and none before', async () => {
    const { service, tokenFor } = await setup();
    const { token } = await tokenFor('alice');
    for (const [version, resumable] of [
      ['2025-11-25', true],
      ['2025-03-26', true],
      ['2024-11-05', false],
    ] as const) {
      const { sessionId } = await initialize(service, token, version);
      const reply = await send(service, token, call, { sessionId });
      expect(reply.kind === 'pending' && reply.streamId !== undefined, version).toBe(resumable);
    }
  });

  it('keeps the answer of a call whose client left, without cancelling it, and hands it to a resume', async () => {
    const { forwarder, release, seen } = slowDownstream();
    const { service, tokenFor } = await setup({ forwarder });
    const { token } = await tokenFor('alice');
    const { sessionId } = await initialize(service, token, '2025-11-25');
    const gone = new AbortController();
    const reply = await service.post({
      authorization: token,
      sessionId,
      protocolVersion: undefined,
      body: call,
      signal: gone.signal,
    });
    if (reply.kind !== 'pending' || !reply.streamId) throw new Error('expected a resumable call');
    gone.abort();
    const resumed = await service.resume({
      authorization: token,
      sessionId,
      protocolVersion: undefined,
      lastEventId: `${reply.streamId}:0`,
    });
    if (resumed.kind !== 'resumed') throw new Error(`expected a resumed stream, got ${JSON.stringify(resumed)}`);
    release();
    expect(await resumed.answer).toEqual({
      jsonrpc: '2.0',
      id: 42,
      result: { content: [{ type: 'text', text: '{"late":true}' }], structuredContent: { late: true } },
    });
    expect(seen.aborted).toBe(false);
    // A client that already had the answer gets nothing more.
    const after = await service.resume({
      authorization: token,
      sessionId,
      protocolVersion: undefined,
      lastEventId: `${reply.streamId}:1`,
    });
    expect(after.kind === 'resumed' && (await after.answer)).toBeNull();
  });

  it('keeps or does not charge: an answer the store refuses to keep for a client that left is not charged, and audited so once (issue 25, finding 1)', async () => {
    const { forwarder, release } = slowDownstream();
    const refusing = (streams: StreamStore): StreamStore => ({
      ...streams,
      keep: () => Promise.reject(new StoreUnavailableError('The store is unavailable: test')),
      watch: streams.watch.bind(streams),
      get: streams.get.bind(streams),
    });
    const { service, tokenFor, audited, usage } = await setup({ forwarder, streams: refusing, settled: true });
    const { token, agentId } = await tokenFor('alice');
    const { sessionId } = await initialize(service, token, '2025-11-25');
    const gone = new AbortController();
    const reply = await service.post({
      authorization: token,
      sessionId,
      protocolVersion: undefined,
      body: call,
      signal: gone.signal,
    });
    if (reply.kind !== 'pending' || !reply.streamId) throw new Error('expected a resumable call');
    gone.abort();
    release();
    await reply.answer;
    await vi.waitFor(() => expect(audited.filter((event) => event.kind === 'tool-call')).toHaveLength(1));
    expect(audited.filter((event) => event.kind === 'tool-call')).toEqual([
      expect.objectContaining({ outcome: 'client-gone', agentId, tokensCharged: 0 }),
    ]);
    expect(await usage(agentId)).toMatchObject({ used: 0, reserved: 0 });
  });

  it('charges an answer kept for a client that left, once (issue 25, finding 1)', async () => {
    const { forwarder, release } = slowDownstream();
    const { service, tokenFor, audited, usage } = await setup({ forwarder, settled: true });
    const { token, agentId } = await tokenFor('alice');
    const { sessionId } = await initialize(service, token, '2025-11-25');
    const gone = new AbortController();
    const reply = await service.post({
      authorization: token,
      sessionId,
      protocolVersion: undefined,
      body: call,
      signal: gone.signal,
    });
    if (reply.kind !== 'pending' || !reply.streamId) throw new Error('expected a resumable call');
    gone.abort();
    release();
    await reply.answer;
    const calls = audited.filter((event) => event.kind === 'tool-call');
    expect(calls).toEqual([expect.objectContaining({ outcome: 'ok', agentId })]);
    expect((await usage(agentId)).used).toBe((calls[0] as { tokensCharged: number }).tokensCharged);
    expect((await usage(agentId)).used).toBeGreaterThan(0);
  });

  it('answers stream-gone for its request when nothing was kept in the window; refuses another session’s stream at once', async () => {
    const { forwarder, release } = slowDownstream();
    const { service, tokenFor } = await setup({ forwarder, resumeWindowMs: 300 });
    const { token } = await tokenFor('alice');
    const mine = await initialize(service, token, '2025-11-25');
    const other = await initialize(service, token, '2025-11-25');
    const gone = new AbortController();
    const reply = await service.post({
      authorization: token,
      sessionId: mine.sessionId,
      protocolVersion: undefined,
      body: call,
      signal: gone.signal,
    });
    if (reply.kind !== 'pending' || !reply.streamId) throw new Error('expected a resumable call');
    // Still running and never kept: the window ends first.
    const early = await service.resume({
      authorization: token,
      sessionId: mine.sessionId,
      protocolVersion: undefined,
      lastEventId: `${reply.streamId}:0`,
    });
    expect(early.kind === 'resumed' && (await early.answer)).toMatchObject({
      id: 42,
      error: { code: -32600, data: { httpStatus: 410 } },
    });
    gone.abort();
    release();
    await reply.answer;
    await new Promise((resolve) => setTimeout(resolve, 20));
    const stolen = await service.resume({
      authorization: token,
      sessionId: other.sessionId,
      protocolVersion: undefined,
      lastEventId: `${reply.streamId}:0`,
    });
    expect(stolen).toMatchObject({ kind: 'answer', status: 400, failure: { code: 'invalid-request' } });
  });

  it('refuses a Last-Event-ID it did not hand out with 400, and a resume outside the caller’s session with 404', async () => {
    const { service, tokenFor } = await setup();
    const { token } = await tokenFor('alice');
    const { sessionId } = await initialize(service, token, '2025-11-25');
    expect(
      await service.resume({ authorization: token, sessionId, protocolVersion: undefined, lastEventId: 'nonsense' }),
    ).toMatchObject({ status: 400, failure: { code: 'invalid-request' } });
    expect(
      await service.resume({
        authorization: token,
        sessionId: 'A'.repeat(32),
        protocolVersion: undefined,
        lastEventId: 'nonsense',
      }),
    ).toMatchObject({ status: 404 });
  });
});

describe('McpService per-agent concurrency limit', () => {
  /** A downstream whose calls wait until the test ends them, one at a time, in order; it records who each call was for. */
  function heldDownstream() {
    const waiting: Array<{ end: (outcome: 'ok' | 'fail') => void }> = [];
    const agents: Array<string | undefined> = [];
    const forwarder: Forwarder = {
      forward: (_tool, _args, signal, options) => {
        agents.push(options?.agentId);
        return new Promise((resolve, reject) => {
          signal?.addEventListener('abort', () => reject(new DownstreamCallError('cancelled', { reason: 'aborted' })));
          waiting.push({
            end: (outcome) =>
              outcome === 'ok'
                ? resolve({ status: 200, headers: {}, body: { ok: true }, durationMs: 1 })
                : reject(new DownstreamCallError('boom', { reason: 'status', downstreamStatus: 500 })),
          });
        });
      },
    };
    return { forwarder, waiting, agents };
  }
  const call = (id: number) => rpc('tools/call', { name: 'getCustomer', arguments: { id: String(id) } }, id);

  it('refuses a call past the limit in-band with -32003 before it reserves or forwards anything, audited with agent and tool', async () => {
    const downstream = heldDownstream();
    const { service, tokenFor, usage, audited } = await setup({
      forwarder: downstream.forwarder,
      maxConcurrentCallsPerAgent: 2,
    });
    const alice = await tokenFor('alice');
    const { sessionId } = await initialize(service, alice.token);
    const first = answered(send(service, alice.token, call(1), { sessionId }));
    const second = answered(send(service, alice.token, call(2), { sessionId }));
    await eventuallyTrue(() => downstream.waiting.length === 2);
    const held = await usage(alice.agentId);

    const refused = await answered(send(service, alice.token, call(3), { sessionId }));
    expect(refused).toMatchObject({
      status: 200,
      failure: { code: 'too-many-calls', httpStatus: 429, jsonRpcCode: -32003 },
    });
    expect(refused.message).toMatchObject({ id: 3, error: { code: -32003, data: { limit: 2, retryAfterSeconds: 1 } } });
    expect(await usage(alice.agentId)).toEqual(held);
    expect(downstream.agents).toEqual([alice.agentId, alice.agentId]);
    expect(audited.at(-1)).toMatchObject({
      agentId: alice.agentId,
      tool: 'getCustomer',
      outcome: 'too-many-calls',
      tokensCharged: 0,
    });

    // Another agent is not counted with alice.
    const bob = await tokenFor('bob');
    const bobSession = await initialize(service, bob.token);
    const bobs = answered(send(service, bob.token, call(4), { sessionId: bobSession.sessionId }));
    await eventuallyTrue(() => downstream.waiting.length === 3);
    for (const held of downstream.waiting) held.end('ok');
    expect((await Promise.all([first, second, bobs])).map((reply) => reply.failure)).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('gives the place back whichever way the call ends: answer, downstream failure, client gone, refusal in the pipeline', async () => {
    const downstream = heldDownstream();
    const { service, tokenFor } = await setup({ forwarder: downstream.forwarder, maxConcurrentCallsPerAgent: 1 });
    const alice = await tokenFor('alice');
    const { sessionId } = await initialize(service, alice.token);
    const busy = () => answered(send(service, alice.token, call(9), { sessionId }));

    const ok = answered(send(service, alice.token, call(1), { sessionId }));
    await eventuallyTrue(() => downstream.waiting.length === 1);
    expect((await busy()).failure?.code).toBe('too-many-calls');
    downstream.waiting.shift()!.end('ok');
    expect((await ok).failure).toBeUndefined();

    const failed = answered(send(service, alice.token, call(2), { sessionId }));
    await eventuallyTrue(() => downstream.waiting.length === 1);
    downstream.waiting.shift()!.end('fail');
    expect((await failed).failure?.code).toBe('downstream-error');

    const gone = new AbortController();
    const left = answered(
      service.post({
        authorization: alice.token,
        sessionId,
        protocolVersion: undefined,
        body: call(3),
        signal: gone.signal,
      }),
    );
    await eventuallyTrue(() => downstream.waiting.length === 1);
    gone.abort();
    await left;
    downstream.waiting.shift();

    const unknown = await answered(
      send(service, alice.token, rpc('tools/call', { name: 'no_such_tool', arguments: {} }, 4), { sessionId }),
    );
    expect(unknown.failure?.code).toBe('unknown-tool');

    // Had any of them kept its place, this one would be refused.
    const last = answered(send(service, alice.token, call(5), { sessionId }));
    await eventuallyTrue(() => downstream.waiting.length === 1);
    downstream.waiting.shift()!.end('ok');
    expect((await last).failure).toBeUndefined();
  });

  it('0 sets no limit', async () => {
    const downstream = heldDownstream();
    const { service, tokenFor } = await setup({
      forwarder: downstream.forwarder,
      maxConcurrentCallsPerAgent: 0,
      budget: 1_000_000,
    });
    const alice = await tokenFor('alice');
    const { sessionId } = await initialize(service, alice.token);
    const calls = Array.from({ length: 50 }, (_, index) =>
      answered(send(service, alice.token, call(index + 1), { sessionId })),
    );
    await eventuallyTrue(() => downstream.waiting.length === 50);
    for (const held of downstream.waiting) held.end('ok');
    for (const reply of await Promise.all(calls)) expect(reply.failure).toBeUndefined();
  });
});

describe('McpService scopes read from the agent record per request', () => {
  const order = rpc('tools/call', { name: 'createOrder', arguments: { customerId: '1', sku: 'A', quantity: 1 } });
  const listedNames = (reply: McpAnswer) =>
    (reply.message as { result: { tools: Array<{ name: string }> } }).result.tools.map((tool) => tool.name);

  it('a scope removed from the agent leaves the list and is refused on the next request of an open session; the old token never gains one added later', async () => {
    const { service, agents, tokenFor, audited } = await setup();
    const { agentId, token } = await tokenFor('alice', ['orders:write']);
    const { sessionId } = await initialize(service, token, '2025-06-18');
    const send = (body: string) => inSession(service, token, sessionId, undefined, body);
    expect(listedNames(await send(rpc('tools/list')))).toEqual(['getCustomer', 'createOrder']);
    expect(await send(order)).toMatchObject({ status: 200, message: { result: { structuredContent: { ok: true } } } });

    await agents.update(agentId, { scopes: [] });
    expect(listedNames(await send(rpc('tools/list')))).toEqual(['getCustomer']);
    const refused = await send(order);
    expect(refused).toMatchObject({
      status: 200,
      message: {
        error: {
          code: -32003,
          message: 'Tool createOrder requires scopes the agent does not hold: orders:write',
          data: { reason: 'missing-scopes', missingScopes: ['orders:write'] },
        },
      },
    });
    expect(audited.at(-1)).toMatchObject({ outcome: 'forbidden', tool: 'createOrder', httpStatus: 403 });

    // Given back, the scope works again for the token that carries it.
    await agents.update(agentId, { scopes: ['orders:write'] });
    expect(listedNames(await send(rpc('tools/list')))).toEqual(['getCustomer', 'createOrder']);

    const { agentId: bobId, token: bob } = await tokenFor('bob');
    await agents.update(bobId, { scopes: ['orders:write'] });
    const bobs = await initialize(service, bob, '2025-06-18');
    expect(listedNames(await inSession(service, bob, bobs.sessionId, undefined, rpc('tools/list')))).toEqual([
      'getCustomer',
    ]);
    expect(await inSession(service, bob, bobs.sessionId, undefined, order)).toMatchObject({
      message: {
        error: { code: -32003, message: 'Tool createOrder requires scopes the token does not carry: orders:write' },
      },
    });
  });
});

async function eventuallyTrue(check: () => boolean): Promise<void> {
  for (let round = 0; round < 200 && !check(); round++) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(check()).toBe(true);
}
