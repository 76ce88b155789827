import { describe, expect, it } from 'vitest';
import { AgentService, type NewAgent } from '../agents/agent-service.js';
import type { AuditEvent } from '../audit/trail.js';
import { TokenService } from '../auth/token-service.js';
import { SettlementQueue } from '../pipeline/settlement-queue.js';
import { createMemoryStore } from '../store/memory/index.js';
import type { GatewayStore } from '../store/ports.js';
import { createOrder, getCustomer } from '../testing/tool-fixtures.js';
import { buildToolRegistry } from '../tools/registry.js';
import type { McpAnswer, McpReply } from './mcp-messages.js';
import { McpService } from './mcp-service.js';
import { CONFIRM_INPUT, WriteConfirmation } from './write-confirmation.js';

const confirmedRead = { ...getCustomer, name: 'getSecret', confirm: true };
const { registry } = buildToolRegistry([getCustomer, createOrder, confirmedRead]);
const VERSION = '2026-07-28';
const KEY = Buffer.alloc(32, 7);
const ORDER = { customerId: 'c1', sku: 'sku-1', quantity: 2 };
const ELICITING = { elicitation: { form: {} } };

/** One gateway instance over `store`; instances given the same store and key agree on confirmations. */
function instance(store: GatewayStore, agents: AgentService, now: () => number) {
  const forwarded: Array<{ tool: string; args: unknown }> = [];
  const audited: AuditEvent[] = [];
  const settlements = new SettlementQueue({ ledger: store.budget });
  const service = new McpService({
    agents,
    sessions: store.sessions,
    sessionIdleMs: 60_000,
    writeConfirmation: new WriteConfirmation({ key: KEY, redeemed: store.redeemed, clock: now }),
    toolCall: {
      registry: () => registry,
      budget: store.budget,
      settlements,
      forwarder: {
        forward: async (tool, args) => (
          forwarded.push({ tool: tool.name, args }), { status: 201, headers: {}, body: { ok: true }, durationMs: 1 }
        ),
      },
      clock: () => new Date(now()),
    },
    serverInfo: { name: 'tollgate', version: '0.0.0-test' },
    audit: (event) => audited.push(event),
    isReady: async () => true,
  });
  return { service, forwarded, audited, settlements };
}

async function setup(agentInput: Partial<NewAgent> = { confirmWrites: true }) {
  let now = Date.parse('2026-08-01T12:00:00Z');
  const store = createMemoryStore({ clock: () => now });
  const tokens = new TokenService({ signingKey: 's'.repeat(32) });
  const agents = new AgentService({ store, tokens });
  const a = instance(store, agents, () => now);
  const b = instance(store, agents, () => now);
  const agent = await agents.create({
    label: 'writer',
    dailyTokenBudget: 10_000,
    scopes: ['orders:write'],
    ...agentInput,
  });
  const token = `Bearer ${(await agents.issueToken(agent.agentId, 1)).token}`;
  const other = await agents.create({
    label: 'other',
    dailyTokenBudget: 10_000,
    scopes: ['orders:write'],
    confirmWrites: true,
  });
  const otherToken = `Bearer ${(await agents.issueToken(other.agentId, 1)).token}`;
  const used = async () => {
    await a.settlements.settled(agent.agentId);
    await b.settlements.settled(agent.agentId);
    return (await store.budget.usage(agent.agentId, new Date(now))).used;
  };
  return { a, b, token, otherToken, agents, agentId: agent.agentId, used, advance: (ms: number) => (now += ms) };
}

let nextId = 1;
/** A 2026-07-28 tools/call with its envelope and headers; `extra` joins its params (inputResponses, requestState). */
function modernCall(
  name: string,
  args: unknown,
  extra: Record<string, unknown> = {},
  capabilities: object = ELICITING,
) {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': VERSION,
    'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': capabilities,
  };
  const headers = { 'mcp-protocol-version': VERSION, 'mcp-method': 'tools/call', 'mcp-name': name };
  return {
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: nextId++,
      method: 'tools/call',
      params: { name, arguments: args, ...extra, _meta: meta },
    }),
    headers,
    protocolVersion: VERSION,
  };
}

async function answered(reply: Promise<McpReply>): Promise<McpAnswer> {
  const settled = await reply;
  if (settled.kind === 'pending') return settled.answer;
  if (settled.kind !== 'answer') throw new Error(`expected an answer, got ${settled.kind}`);
  return settled;
}

const post = (service: McpService, authorization: string, request: ReturnType<typeof modernCall>) =>
  answered(service.post({ authorization, sessionId: undefined, ...request }));
const resultOf = (reply: McpAnswer) => (reply.message as { result: Record<string, any> }).result;
const errorOf = (reply: McpAnswer) =>
  (reply.message as { error: { code: number; message: string; data?: unknown } }).error;
const accept = (confirm = true) => ({ [CONFIRM_INPUT]: { action: 'accept', content: { confirm } } });

/** The first round: the question and its state. */
async function asked(service: McpService, token: string, name = 'createOrder', args: unknown = ORDER) {
  const reply = await post(service, token, modernCall(name, args));
  const result = resultOf(reply);
  expect(result.resultType).toBe('input_required');
  return result.requestState as string;
}

describe('write confirmation (MCP 2026-07-28 MRTR)', () => {
  it('asks first: a form elicitation naming the tool, its route and arguments; nothing forwarded, charged or counted as a call', async () => {
    const { a, token, used } = await setup();
    const reply = await post(a.service, token, modernCall('createOrder', ORDER));
    expect(reply.status).toBe(200);
    const result = resultOf(reply);
    expect(result).toMatchObject({
      resultType: 'input_required',
      requestState: expect.stringMatching(/^v1\./),
      _meta: { 'io.modelcontextprotocol/serverInfo': expect.any(Object) },
    });
    const request = result.inputRequests[CONFIRM_INPUT];
    expect(request).toMatchObject({
      method: 'elicitation/create',
      params: { mode: 'form', requestedSchema: { type: 'object', required: ['confirm'] } },
    });
    expect(request.params.message).toContain('createOrder (POST /customers/{customerId}/orders)');
    expect(request.params.message).toContain('"quantity":2');
    expect(a.forwarded).toEqual([]);
    expect(await used()).toBe(0);
    expect(a.audited.at(-1)).toMatchObject({ tool: 'createOrder', outcome: 'input-required', tokensCharged: 0 });
  });

  it('the accepted retry goes through the pipeline (forwarded, charged), on another instance too; its state cannot be used twice', async () => {
    const { a, b, token, used } = await setup();
    const requestState = await asked(a.service, token);
    const retry = await post(
      b.service,
      token,
      modernCall('createOrder', ORDER, { inputResponses: accept(), requestState }),
    );
    expect(resultOf(retry)).toMatchObject({ resultType: 'complete' });
    expect(resultOf(retry).isError).toBeUndefined();
    expect(b.forwarded).toEqual([{ tool: 'createOrder', args: ORDER }]);
    expect(b.audited.at(-1)).toMatchObject({ tool: 'createOrder', outcome: 'ok' });
    const charged = await used();
    expect(charged).toBeGreaterThan(0);

    for (const service of [a.service, b.service]) {
      const replay = await post(
        service,
        token,
        modernCall('createOrder', ORDER, { inputResponses: accept(), requestState }),
      );
      expect(errorOf(replay)).toMatchObject({ code: -32602, message: expect.stringMatching(/already used/) });
    }
    expect([...a.forwarded, ...b.forwarded]).toHaveLength(1);
    expect(a.audited.at(-1)).toMatchObject({ outcome: 'not-confirmed' });
    expect(await used()).toBe(charged);
  });

  it.each([
    ['declined', { [CONFIRM_INPUT]: { action: 'decline' } }],
    ['cancelled', { [CONFIRM_INPUT]: { action: 'cancel' } }],
    ['accepted with the box unticked', accept(false)],
  ])(
    '%s: a tool error saying the user did not confirm, audited not-confirmed, nothing forwarded or charged',
    async (_label, inputResponses) => {
      const { a, token, used } = await setup();
      const requestState = await asked(a.service, token);
      const reply = await post(a.service, token, modernCall('createOrder', ORDER, { inputResponses, requestState }));
      expect(resultOf(reply)).toMatchObject({
        isError: true,
        content: [{ text: expect.stringMatching(/did not confirm/) }],
      });
      expect(a.forwarded).toEqual([]);
      expect(a.audited.at(-1)).toMatchObject({ tool: 'createOrder', outcome: 'not-confirmed', httpStatus: 403 });
      expect(await used()).toBe(0);
    },
  );

  it('a retry with other arguments than those confirmed is refused', async () => {
    const { a, token } = await setup();
    const requestState = await asked(a.service, token);
    const reply = await post(
      a.service,
      token,
      modernCall('createOrder', { ...ORDER, quantity: 200 }, { inputResponses: accept(), requestState }),
    );
    expect(errorOf(reply)).toMatchObject({ code: -32602, message: expect.stringMatching(/other arguments/) });
    expect(a.forwarded).toEqual([]);
    expect(a.audited.at(-1)).toMatchObject({ outcome: 'not-confirmed' });
  });

  it('the same arguments in another key order are the same call', async () => {
    const { a, token } = await setup();
    const requestState = await asked(a.service, token);
    const reordered = { quantity: 2, sku: 'sku-1', customerId: 'c1' };
    await post(a.service, token, modernCall('createOrder', reordered, { inputResponses: accept(), requestState }));
    expect(a.forwarded).toHaveLength(1);
  });

  it('a state for another tool, another agent, forged, altered or expired is refused, and nothing is forwarded', async () => {
    const { a, token, otherToken, advance } = await setup();
    const requestState = await asked(a.service, token);
    const [version, payload, signature] = requestState.split('.') as [string, string, string];
    const altered = JSON.parse(Buffer.from(payload, 'base64url').toString());
    altered.t = 'createOrder';
    altered.e += 3_600_000;
    const cases: Array<[string, string, unknown, RegExp]> = [
      ['another agent', otherToken, requestState, /another agent/],
      [
        'forged signature',
        token,
        `${version}.${payload}.${'A'.repeat(signature.length)}`,
        /not one this gateway issued/,
      ],
      [
        'altered payload',
        token,
        `${version}.${Buffer.from(JSON.stringify(altered)).toString('base64url')}.${signature}`,
        /not one this gateway issued/,
      ],
      ['not a string', token, 42, /not one this gateway issued/],
      ['huge', token, 'v1.'.padEnd(100_000, 'x'), /not one this gateway issued/],
    ];
    for (const [label, authorization, state, message] of cases) {
      const reply = await post(
        a.service,
        authorization,
        modernCall('createOrder', ORDER, { inputResponses: accept(), requestState: state }),
      );
      expect(errorOf(reply), label).toMatchObject({ code: -32602, message: expect.stringMatching(message) });
    }
    const secretState = await asked(a.service, token, 'getSecret', { id: '7' });
    const crossed = await post(
      a.service,
      token,
      modernCall('createOrder', ORDER, { inputResponses: accept(), requestState: secretState }),
    );
    expect(errorOf(crossed).message).toMatch(/another tool/);
    advance(5 * 60_000 + 1);
    const late = await post(
      a.service,
      token,
      modernCall('createOrder', ORDER, { inputResponses: accept(), requestState }),
    );
    expect(errorOf(late).message).toMatch(/expired/);
    expect(a.forwarded).toEqual([]);
  });

  it('a retry without an answer is asked again; an answer without a state is asked too, never taken at its word', async () => {
    const { a, token } = await setup();
    const requestState = await asked(a.service, token);
    expect(resultOf(await post(a.service, token, modernCall('createOrder', ORDER, { requestState }))).resultType).toBe(
      'input_required',
    );
    expect(
      resultOf(await post(a.service, token, modernCall('createOrder', ORDER, { inputResponses: accept() }))).resultType,
    ).toBe('input_required');
    expect(a.forwarded).toEqual([]);
  });

  it('a client without the elicitation capability gets -32021 naming it', async () => {
    const { a, token } = await setup();
    const reply = await post(a.service, token, modernCall('createOrder', ORDER, {}, {}));
    expect(errorOf(reply)).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { elicitation: { form: {} } } },
    });
    expect(a.audited.at(-1)).toMatchObject({ outcome: 'not-confirmed' });
    expect(a.forwarded).toEqual([]);
  });

  it('url-only elicitation cannot show the form: -32021 too', async () => {
    const { a, token } = await setup();
    const reply = await post(a.service, token, modernCall('createOrder', ORDER, {}, { elicitation: { url: {} } }));
    expect(errorOf(reply).code).toBe(-32021);
  });

  it('a read tool of a confirmWrites agent is not asked; a tool marked confirm is, whoever calls it', async () => {
    const { a, token } = await setup();
    await post(a.service, token, modernCall('getCustomer', { id: '7' }));
    expect(a.forwarded).toEqual([{ tool: 'getCustomer', args: { id: '7' } }]);
    const plain = await setup({});
    await post(plain.a.service, plain.token, modernCall('createOrder', ORDER));
    expect(plain.a.forwarded).toHaveLength(1);
    await asked(plain.a.service, plain.token, 'getSecret', { id: '7' });
  });

  it('refused on a 2025 session with a message saying why (the revision), nothing forwarded', async () => {
    const { a, token } = await setup();
    const rpc = (method: string, params: object) => JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params });
    const init = await answered(
      a.service.post({
        authorization: token,
        sessionId: undefined,
        protocolVersion: undefined,
        body: rpc('initialize', {
          protocolVersion: '2025-11-25',
          capabilities: { elicitation: {} },
          clientInfo: { name: 't', version: '1' },
        }),
      }),
    );
    const reply = await answered(
      a.service.post({
        authorization: token,
        sessionId: init.sessionId,
        protocolVersion: '2025-11-25',
        body: rpc('tools/call', { name: 'createOrder', arguments: ORDER }),
      }),
    );
    expect(errorOf(reply)).toMatchObject({
      code: -32003,
      message: expect.stringMatching(/2026-07-28.*this session speaks 2025-11-25/),
    });
    expect(reply.failure).toMatchObject({ code: 'confirmation-unavailable', httpStatus: 403 });
    expect(a.forwarded).toEqual([]);
    expect(a.audited.at(-1)).toMatchObject({ tool: 'createOrder', outcome: 'not-confirmed' });
  });
});
