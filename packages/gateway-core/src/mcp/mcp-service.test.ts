import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../errors.js';
import type { Forwarder } from '../forward/forwarder.js';
import { createMemoryStore } from '../store/memory/index.js';
import type { AgentRecord, SessionStore } from '../store/ports.js';
import { buildToolRegistry } from '../tools/registry.js';
import { createOrder, getCustomer } from '../testing/tool-fixtures.js';
import { InvalidRequestError, MethodNotFoundError, SessionNotFoundError } from './errors.js';
import type { JsonRpcRequest } from './jsonrpc.js';
import { SettlementQueue } from '../pipeline/settlement-queue.js';
import { McpService, type McpCaller } from './mcp-service.js';

const IDLE_MS = 60_000;
const { registry } = buildToolRegistry([getCustomer, createOrder]);

function agent(agentId: string, overrides: Partial<AgentRecord> = {}): AgentRecord {
  return {
    agentId,
    label: agentId,
    dailyTokenBudget: 10_000,
    isActive: true,
    allowedTools: null,
    scopes: [],
    createdAt: '2025-05-01T00:00:00.000Z',
    updatedAt: '2025-05-01T00:00:00.000Z',
    ...overrides,
  };
}

const alice: McpCaller = { agent: agent('agt_alice'), tokenScopes: [] };
const bob: McpCaller = { agent: agent('agt_bob'), tokenScopes: [] };

const initializeParams = (protocolVersion = '2024-11-05') => ({
  protocolVersion,
  capabilities: {},
  clientInfo: { name: 'test-client', version: '1.0.0' },
});

function request(method: string, params?: Record<string, unknown>): JsonRpcRequest {
  return { jsonrpc: '2.0', id: 1, method, ...(params === undefined ? {} : { params }) } as JsonRpcRequest;
}

/** The service over the memory store, with a clock the test moves and a count of session lookups. */
function setup() {
  let now = Date.parse('2025-05-01T12:00:00Z');
  const store = createMemoryStore({ clock: () => now });
  let lookups = 0;
  const sessions: SessionStore = {
    create: (session, ttl) => store.sessions.create(session, ttl),
    touch: (id, ttl) => {
      lookups += 1;
      return store.sessions.touch(id, ttl);
    },
    delete: (id) => store.sessions.delete(id),
  };
  const forwarder: Forwarder = { forward: async () => ({ status: 200, headers: {}, body: { ok: true }, durationMs: 1 }) };
  const service = new McpService({
    sessions,
    sessionIdleMs: IDLE_MS,
    toolCall: { registry: () => registry, budget: store.budget, forwarder, clock: () => new Date(now) },
    serverInfo: { name: 'tollgate', version: '0.0.0-test' },
  });
  return {
    service,
    advance: (ms: number) => (now += ms),
    lookups: () => lookups,
  };
}

describe('McpService', () => {
  it('opens a session in the version the client asked for, or 2024-11-05', async () => {
    const { service } = setup();
    const current = await service.initialize(alice, initializeParams('2025-06-18'));
    expect(current.sessionId).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(current.result).toMatchObject({ protocolVersion: '2025-06-18', serverInfo: { name: 'tollgate' }, capabilities: { tools: {} } });

    const unknown = await service.initialize(alice, initializeParams('1999-01-01'));
    expect(unknown.result.protocolVersion).toBe('2024-11-05');
    expect(unknown.sessionId).not.toBe(current.sessionId);
  });

  it('refuses initialize params without clientInfo with -32602', async () => {
    const { service } = setup();
    await expect(service.initialize(alice, { protocolVersion: '2024-11-05', capabilities: {} })).rejects.toBeInstanceOf(InvalidInputError);
  });

  it("resumes the agent's own session in its negotiated version", async () => {
    const { service } = setup();
    const { sessionId } = await service.initialize(alice, initializeParams('2025-03-26'));
    const session = await service.resumeSession(alice, sessionId, undefined);
    expect(session).toMatchObject({ protocolVersion: '2025-03-26', record: { sessionId, agentId: 'agt_alice' } });
    expect(await service.resumeSession(alice, sessionId, '2025-03-26')).toMatchObject({ protocolVersion: '2025-03-26' });
  });

  it("answers another agent's session id with 404, exactly like an unknown one", async () => {
    const { service } = setup();
    const { sessionId } = await service.initialize(alice, initializeParams());
    const stolen = service.resumeSession(bob, sessionId, undefined);
    await expect(stolen).rejects.toBeInstanceOf(SessionNotFoundError);
    await expect(stolen).rejects.toMatchObject({ httpStatus: 404 });
    await expect(service.resumeSession(bob, 'A'.repeat(32), undefined)).rejects.toThrow(new SessionNotFoundError().message);
    // Bob's attempt does not end Alice's session.
    await expect(service.resumeSession(alice, sessionId, undefined)).resolves.toMatchObject({ record: { sessionId } });
  });

  it('requires a session id: 400 / -32600 when it is missing or empty', async () => {
    const { service, lookups } = setup();
    for (const missing of [undefined, '']) {
      const attempt = service.resumeSession(alice, missing, undefined);
      await expect(attempt).rejects.toBeInstanceOf(InvalidRequestError);
      await expect(attempt).rejects.toMatchObject({ httpStatus: 400, jsonRpcCode: -32600 });
    }
    expect(lookups()).toBe(0);
  });

  it('answers malformed or oversized session ids with 404 without asking the store', async () => {
    const { service, lookups } = setup();
    for (const id of ['short', 'x'.repeat(33), 'x'.repeat(10_000), 'a/b'.padEnd(32, 'c'), 'tollgate:session:*'.padEnd(32, '*'), ' '.repeat(32)]) {
      await expect(service.resumeSession(alice, id, undefined)).rejects.toBeInstanceOf(SessionNotFoundError);
    }
    expect(lookups()).toBe(0);
  });

  it('expires a session after the idle time, and each request extends it', async () => {
    const { service, advance } = setup();
    const { sessionId } = await service.initialize(alice, initializeParams());
    advance(IDLE_MS - 1);
    await service.resumeSession(alice, sessionId, undefined);
    advance(IDLE_MS - 1);
    await expect(service.resumeSession(alice, sessionId, undefined)).resolves.toBeDefined();
    advance(IDLE_MS);
    await expect(service.resumeSession(alice, sessionId, undefined)).rejects.toBeInstanceOf(SessionNotFoundError);
  });

  it('ends a session: the id is then unknown', async () => {
    const { service } = setup();
    const { sessionId } = await service.initialize(alice, initializeParams());
    await service.endSession(await service.resumeSession(alice, sessionId, undefined));
    await expect(service.resumeSession(alice, sessionId, undefined)).rejects.toBeInstanceOf(SessionNotFoundError);
  });

  it('refuses an MCP-Protocol-Version header that is unsupported or differs from the session with 400', async () => {
    const { service } = setup();
    const { sessionId } = await service.initialize(alice, initializeParams('2025-06-18'));
    for (const header of ['2025-03-26', '2099-01-01', 'garbage']) {
      const attempt = service.resumeSession(alice, sessionId, header);
      await expect(attempt).rejects.toBeInstanceOf(InvalidRequestError);
      await expect(attempt).rejects.toMatchObject({ httpStatus: 400 });
    }
  });

  it('answers ping with an empty result', async () => {
    const { service } = setup();
    const { sessionId } = await service.initialize(alice, initializeParams());
    const session = await service.resumeSession(alice, sessionId, undefined);
    expect(await service.handle(alice, session, request('ping'))).toEqual({ method: 'ping', result: {} });
  });

  it('lists the tools the token allows, and calls them', async () => {
    const { service } = setup();
    const writer: McpCaller = { agent: agent('agt_alice'), tokenScopes: ['orders:write'] };
    const { sessionId } = await service.initialize(writer, initializeParams());
    const session = await service.resumeSession(writer, sessionId, undefined);

    const names = async (caller: McpCaller) => {
      const listed = await service.handle(caller, session, request('tools/list', {}));
      return (listed.result as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name);
    };
    expect(await names(writer)).toEqual(['getCustomer', 'createOrder']);
    expect(await names(alice)).toEqual(['getCustomer']);

    const called = await service.handle(writer, session, request('tools/call', { name: 'createOrder', arguments: { customerId: '1', sku: 'A', quantity: 2 } }));
    expect(called.result).toEqual({ content: [{ type: 'text', text: '{"ok":true}' }] });
  });

  it('answers an unknown method with -32601', async () => {
    const { service } = setup();
    const { sessionId } = await service.initialize(alice, initializeParams());
    const session = await service.resumeSession(alice, sessionId, undefined);
    const attempt = service.handle(alice, session, request('resources/list'));
    await expect(attempt).rejects.toBeInstanceOf(MethodNotFoundError);
    await expect(attempt).rejects.toMatchObject({ jsonRpcCode: -32601, message: 'Method not found: resources/list' });
  });

  it('refuses initialize inside an initialized session', async () => {
    const { service } = setup();
    const { sessionId } = await service.initialize(alice, initializeParams());
    const session = await service.resumeSession(alice, sessionId, undefined);
    const attempt = service.handle(alice, session, request('initialize', initializeParams()));
    await expect(attempt).rejects.toBeInstanceOf(InvalidRequestError);
    await expect(attempt).rejects.toThrow(/already initialized/);
  });

  describe('reserving ahead (the budget reservation leaves with the authentication reads)', () => {
    function withLedger() {
      const store = createMemoryStore();
      const settlements = new SettlementQueue({ ledger: store.budget });
      const forwarder: Forwarder = { forward: async () => ({ status: 200, headers: {}, body: { ok: true }, durationMs: 1 }) };
      const service = new McpService({
        sessions: store.sessions,
        sessionIdleMs: IDLE_MS,
        toolCall: { registry: () => registry, budget: store.budget, settlements, forwarder },
        serverInfo: { name: 'tollgate', version: '0.0.0-test' },
      });
      const usage = async (agentId: string) => {
        await settlements.settled(agentId);
        return store.budget.usage(agentId, new Date());
      };
      return { service, usage };
    }

    it('starts nothing for an unknown tool or an agent not seen yet, then reserves the tool’s cap', async () => {
      const { service, usage } = withLedger();
      expect(service.reserveAhead('agt_alice', { name: 'getCustomer' })).toBeNull();
      const { sessionId } = await service.initialize(alice, initializeParams());
      const session = await service.resumeSession(alice, sessionId, undefined);
      await service.handle(alice, session, request('ping'));
      expect(service.reserveAhead('agt_alice', { name: 'no_such_tool' })).toBeNull();
      expect(service.reserveAhead('agt_alice', 'not params')).toBeNull();
      const ahead = service.reserveAhead('agt_alice', { name: 'getCustomer' });
      expect(ahead).not.toBeNull();
      expect(await usage('agt_alice')).toMatchObject({ reserved: getCustomer.maxResponseTokens });

      const outcome = await service.handle(alice, session, request('tools/call', { name: 'getCustomer', arguments: { id: '7' } }), { reservedAhead: ahead });
      expect(outcome.method).toBe('tools/call');
      // One reservation, settled: nothing held, the answer charged.
      expect(await usage('agt_alice')).toMatchObject({ used: (outcome as { call: { tokensCharged: number } }).call.tokensCharged, reserved: 0 });
    });

    it('gives the reservation back when the call is refused before its budget step', async () => {
      const { service, usage } = withLedger();
      const { sessionId } = await service.initialize(alice, initializeParams());
      const session = await service.resumeSession(alice, sessionId, undefined);
      await service.handle(alice, session, request('ping'));
      const ahead = service.reserveAhead('agt_alice', { name: 'getCustomer' });
      const refused = service.handle(alice, session, request('tools/call', { name: 'getCustomer', arguments: { id: 7 } }), { reservedAhead: ahead });
      await expect(refused).rejects.toBeInstanceOf(InvalidInputError);
      expect(await usage('agt_alice')).toMatchObject({ used: 0, reserved: 0 });
    });
  });
});
