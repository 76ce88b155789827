import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayClient } from './support/gateway-client.js';
import { decodeJwtPayload, expiredAdminToken, foreignAdminToken } from './support/jwt.js';
import { mcpInitialize, mcpRequest } from './support/mcp-probe.js';
import { rawRequest } from './support/raw-http.js';
import { startPair, type Pair } from './support/pair.js';
import { eventually, type RunningProcess } from './support/processes.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const AGENT_ID = /^agt_[A-Za-z0-9_-]{22}$/;

type Reply = Awaited<ReturnType<GatewayClient['request']>>;

/** RFC 9457: every management error is a problem document with its own media type. */
function expectProblem(reply: Reply, status: number): void {
  expect(reply.status, JSON.stringify(reply.body)).toBe(status);
  expect(reply.headers.get('Content-Type')).toMatch(/^application\/problem\+json/);
  expect(reply.body).toMatchObject({ type: 'about:blank', status, title: expect.any(String) });
}

function expectAbout(iso: string, expectedMs: number): void {
  expect(iso).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/);
  expect(Math.abs(Date.parse(iso) - expectedMs)).toBeLessThan(60_000);
}

describe('management API (contract 4.2) of the built gateway', () => {
  let pair: Pair;
  let gateway: RunningProcess;
  let client: GatewayClient;
  let admin: string;

  beforeAll(async () => {
    pair = await startPair({ ready: false });
    ({ gateway, api: client } = pair);
    admin = await pair.adminToken();
  });
  afterAll(() => pair?.stop());

  const create = (body: unknown) => client.request('POST', '/management/agents', admin, body);

  describe('create, get and list', () => {
    it('creates an agent: 201, an agt_ id, isActive true, Location of the record', async () => {
      const reply = await create({ label: 'Support bot', dailyTokenBudget: 50_000 });
      expect(reply.status).toBe(201);
      expect(reply.body).toMatchObject({
        label: 'Support bot',
        dailyTokenBudget: 50_000,
        isActive: true,
        allowedTools: null,
        scopes: [],
      });
      expect(reply.body.agentId).toMatch(AGENT_ID);
      expect(reply.headers.get('Location')).toBe(`/management/agents/${reply.body.agentId}`);
    });

    it('gives every agent its own id', async () => {
      const ids = await Promise.all(
        [1, 2, 3].map(async (n) => (await create({ label: `a${n}`, dailyTokenBudget: n })).body.agentId),
      );
      expect(new Set(ids).size).toBe(3);
    });

    it('get and list echo allowedTools and scopes', async () => {
      const created = await create({
        label: 'Orders bot',
        dailyTokenBudget: 1000,
        allowedTools: ['get_order', 'list_orders'],
        scopes: ['orders:read'],
      });
      const { agentId } = created.body;
      const expected = {
        agentId,
        label: 'Orders bot',
        dailyTokenBudget: 1000,
        isActive: true,
        allowedTools: ['get_order', 'list_orders'],
        scopes: ['orders:read'],
      };
      expect(created.body).toMatchObject(expected);

      const got = await client.request('GET', `/management/agents/${agentId}`, admin);
      expect(got.status).toBe(200);
      expect(got.body).toMatchObject(expected);

      const listed = await client.request('GET', '/management/agents', admin);
      expect(listed.status).toBe(200);
      expect(Array.isArray(listed.body)).toBe(true);
      expect(listed.body.find((agent: { agentId: string }) => agent.agentId === agentId)).toMatchObject(expected);
    });

    it.each<[string, unknown, string]>([
      ['a missing label', { dailyTokenBudget: 10 }, 'label'],
      ['a missing budget', { label: 'x' }, 'dailyTokenBudget'],
      ['a negative budget', { label: 'x', dailyTokenBudget: -1 }, 'dailyTokenBudget'],
      ['a fractional budget', { label: 'x', dailyTokenBudget: 1.5 }, 'dailyTokenBudget'],
      ['a budget as a string', { label: 'x', dailyTokenBudget: '100' }, 'dailyTokenBudget'],
      ['a label of the wrong type', { label: 42, dailyTokenBudget: 10 }, 'label'],
      ['an empty label', { label: '  ', dailyTokenBudget: 10 }, 'label'],
      [
        'allowedTools that is not a list',
        { label: 'x', dailyTokenBudget: 10, allowedTools: 'get_order' },
        'allowedTools',
      ],
      ['scopes holding a number', { label: 'x', dailyTokenBudget: 10, scopes: ['orders:read', 7] }, 'scopes.1'],
      ['an unknown field', { label: 'x', dailyTokenBudget: 10, budget: 10 }, '(body)'],
      ['a client-chosen agentId', { agentId: 'agt_mine', label: 'x', dailyTokenBudget: 10 }, '(body)'],
      [
        'a __proto__ field',
        JSON.parse('{"label": "x", "dailyTokenBudget": 10, "__proto__": {"isActive": false}}'),
        '(body)',
      ],
      ['an array body', [{ label: 'x', dailyTokenBudget: 10 }], '(body)'],
      ['a null body', null, '(body)'],
    ])('refuses a create with %s: 400 naming the field, nothing created', async (_, body, field) => {
      const before = (await client.request('GET', '/management/agents', admin)).body.length;
      const reply = await create(body);
      expectProblem(reply, 400);
      expect(
        reply.body.errors.some((error: string) => error.startsWith(`${field}:`)),
        JSON.stringify(reply.body.errors),
      ).toBe(true);
      expect((await client.request('GET', '/management/agents', admin)).body).toHaveLength(before);
    });

    it('refuses invalid JSON, a missing body and a non-JSON content type with 400', async () => {
      const invalidJson = await client.request(
        'POST',
        '/management/agents',
        admin,
        '{"label": "x", dailyTokenBudget: 10}',
      );
      expectProblem(invalidJson, 400);
      expect(invalidJson.body.detail).toMatch(/not valid JSON/);

      const missing = await client.request('POST', '/management/agents', admin);
      expectProblem(missing, 400);

      const wrongType = await fetch(`${gateway.url}/management/agents`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${admin}`, 'Content-Type': 'text/plain' },
        body: JSON.stringify({ label: 'x', dailyTokenBudget: 10 }),
      });
      expect(wrongType.status).toBe(400);
      expect(wrongType.headers.get('Content-Type')).toMatch(/^application\/problem\+json/);
      expect(await wrongType.json()).toMatchObject({
        status: 400,
        detail: expect.stringMatching(/Content-Type must be application\/json/),
      });
    });
  });

  it('answers 413 to a body over 1 MiB, but 401 to one without an admin token', async () => {
    // Own connections: a body refused unread must not leave a half-used socket in fetch's pool.
    const huge = JSON.stringify({ label: 'x'.repeat(2 * 1024 * 1024), dailyTokenBudget: 1 });
    const url = `${gateway.url}/management/agents`;
    const tooLarge = await rawRequest(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${admin}` },
      body: huge,
    });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.contentType).toMatch(/^application\/problem\+json/);
    const unauthenticated = await rawRequest(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: huge,
    });
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.contentType).toMatch(/^application\/problem\+json/);
  });

  describe('update and delete', () => {
    it('updates partially: omitted fields keep their value', async () => {
      const { agentId } = await client.createAgent(admin, {
        label: 'Partial',
        dailyTokenBudget: 100,
        allowedTools: ['get_order'],
        scopes: ['orders:read'],
      });

      const budgetOnly = await client.request('PUT', `/management/agents/${agentId}`, admin, {
        dailyTokenBudget: 5000,
      });
      expect(budgetOnly.status).toBe(200);
      expect(budgetOnly.body).toMatchObject({
        agentId,
        label: 'Partial',
        dailyTokenBudget: 5000,
        isActive: true,
        allowedTools: ['get_order'],
        scopes: ['orders:read'],
      });

      const others = await client.request('PUT', `/management/agents/${agentId}`, admin, {
        label: 'Renamed',
        allowedTools: null,
        scopes: ['orders:read', 'orders:write'],
      });
      expect(others.status).toBe(200);
      expect(others.body).toMatchObject({
        label: 'Renamed',
        dailyTokenBudget: 5000,
        allowedTools: null,
        scopes: ['orders:read', 'orders:write'],
      });

      const nothing = await client.request('PUT', `/management/agents/${agentId}`, admin, {});
      expect(nothing.status).toBe(200);
      expect(nothing.body).toMatchObject({
        label: 'Renamed',
        dailyTokenBudget: 5000,
        isActive: true,
        allowedTools: null,
      });

      const got = await client.request('GET', `/management/agents/${agentId}`, admin);
      expect(got.body).toMatchObject({
        agentId,
        label: 'Renamed',
        dailyTokenBudget: 5000,
        isActive: true,
        allowedTools: null,
        scopes: ['orders:read', 'orders:write'],
      });
    });

    it('sets isActive both ways', async () => {
      const { agentId } = await client.createAgent(admin, { label: 'Toggle', dailyTokenBudget: 1 });
      expect(
        (await client.request('PUT', `/management/agents/${agentId}`, admin, { isActive: false })).body.isActive,
      ).toBe(false);
      expect((await client.request('GET', `/management/agents/${agentId}`, admin)).body.isActive).toBe(false);
      expect(
        (await client.request('PUT', `/management/agents/${agentId}`, admin, { isActive: true })).body.isActive,
      ).toBe(true);
    });

    it.each<[string, unknown, string]>([
      ['a negative budget', { dailyTokenBudget: -5 }, 'dailyTokenBudget'],
      ['isActive as a string', { isActive: 'false' }, 'isActive'],
      ['a null label', { label: null }, 'label'],
      ['an unknown field', { dailyTokenBudget: 10, colour: 'red' }, '(body)'],
      ['an attempt to change the id', { agentId: 'agt_other' }, '(body)'],
    ])('refuses an update with %s: 400, the record unchanged', async (_, body, field) => {
      const { agentId } = await client.createAgent(admin, { label: 'Stable', dailyTokenBudget: 77 });
      const reply = await client.request('PUT', `/management/agents/${agentId}`, admin, body);
      expectProblem(reply, 400);
      expect(
        reply.body.errors.some((error: string) => error.startsWith(`${field}:`)),
        JSON.stringify(reply.body.errors),
      ).toBe(true);
      expect((await client.request('GET', `/management/agents/${agentId}`, admin)).body).toMatchObject({
        label: 'Stable',
        dailyTokenBudget: 77,
        isActive: true,
      });
    });

    it('refuses an update with invalid JSON', async () => {
      const { agentId } = await client.createAgent(admin, { label: 'Json', dailyTokenBudget: 1 });
      expectProblem(await client.request('PUT', `/management/agents/${agentId}`, admin, '{"isActive": fals'), 400);
    });

    it('deletes: 204 with no body, then the agent is gone everywhere', async () => {
      const { agentId } = await client.createAgent(admin, { label: 'Doomed', dailyTokenBudget: 1 });
      const deleted = await client.request('DELETE', `/management/agents/${agentId}`, admin);
      expect(deleted.status).toBe(204);
      expect(deleted.body).toBeNull();
      expectProblem(await client.request('GET', `/management/agents/${agentId}`, admin), 404);
      expectProblem(await client.request('DELETE', `/management/agents/${agentId}`, admin), 404);
      const listed = await client.request('GET', '/management/agents', admin);
      expect(listed.body.map((agent: { agentId: string }) => agent.agentId)).not.toContain(agentId);
    });
  });

  describe('unknown agents', () => {
    const unknown = 'agt_AAAAAAAAAAAAAAAAAAAAAA';
    it.each<[string, string, unknown]>([
      ['GET', `/management/agents/${unknown}`, undefined],
      ['PUT', `/management/agents/${unknown}`, { dailyTokenBudget: 1 }],
      ['DELETE', `/management/agents/${unknown}`, undefined],
      ['POST', `/management/agents/${unknown}/token`, undefined],
      ['GET', `/management/agents/${unknown}/budget`, undefined],
      ['DELETE', `/management/agents/${unknown}/budget`, undefined],
      ['GET', '/management/agents/not-an-agent-id', undefined],
    ])('%s %s answers 404 with a problem body', async (method, path, body) => {
      const reply = await client.request(method, path, admin, body);
      expectProblem(reply, 404);
      expect(reply.body.detail).toMatch(/not found/i);
    });
  });

  describe('agent tokens', () => {
    it('issues a 30-day token by default, with or without an empty body; claims carry the agent id and scopes', async () => {
      const { agentId } = await client.createAgent(admin, {
        label: 'Tokened',
        dailyTokenBudget: 10,
        scopes: ['orders:read', 'customers:read'],
      });
      for (const body of [undefined, {}]) {
        const issuedAt = Date.now();
        const reply = await client.request('POST', `/management/agents/${agentId}/token`, admin, body);
        expect(reply.status).toBe(200);
        expect(Object.keys(reply.body).sort()).toEqual(['expiresAt', 'token']);
        expect(reply.headers.get('Cache-Control')).toBe('no-store');
        expectAbout(reply.body.expiresAt, issuedAt + 30 * DAY_MS);

        const claims = decodeJwtPayload(reply.body.token);
        expect(claims).toMatchObject({
          sub: agentId,
          scopes: ['orders:read', 'customers:read'],
          aud: 'tollgate:agent',
          iss: 'tollgate',
        });
        expect((claims.exp as number) * 1000).toBe(Date.parse(reply.body.expiresAt));
      }
    });

    it('honours expiresInDays', async () => {
      const { agentId } = await client.createAgent(admin, { label: 'Week', dailyTokenBudget: 10 });
      const reply = await client.request('POST', `/management/agents/${agentId}/token`, admin, { expiresInDays: 7 });
      expect(reply.status).toBe(200);
      expectAbout(reply.body.expiresAt, Date.now() + 7 * DAY_MS);
      expect(decodeJwtPayload(reply.body.token)).toMatchObject({ sub: agentId, scopes: [] });
    });

    it('issues tokens that work on /mcp', async () => {
      const { agentId } = await client.createAgent(admin, { label: 'Caller', dailyTokenBudget: 10_000 });
      const token = await client.agentToken(admin, agentId);
      const reply = await eventually(
        () => mcpInitialize(gateway.url, token),
        (r) => r.status !== 503,
      );
      expect(reply.status).toBe(200);
      expect(reply.sessionId).toBeTruthy();
      expect(reply.message.result.protocolVersion).toBe('2024-11-05');
    });

    it.each<[string, unknown]>([
      ['zero days', { expiresInDays: 0 }],
      ['negative days', { expiresInDays: -3 }],
      ['fractional days', { expiresInDays: 1.5 }],
      ['days as a string', { expiresInDays: '7' }],
      ['more than ten years', { expiresInDays: 3651 }],
      ['an unknown field', { days: 7 }],
      ['a null body', null],
    ])('refuses %s with 400', async (_, body) => {
      const { agentId } = await client.createAgent(admin, { label: 'Bad token request', dailyTokenBudget: 10 });
      const reply = await client.request('POST', `/management/agents/${agentId}/token`, admin, body);
      expectProblem(reply, 400);
      expect(reply.body.errors.length).toBeGreaterThan(0);
    });
  });

  describe('budget', () => {
    it('reports {agentId, dailyTokenBudget, used, remaining, resetsAt}, and a reset clears what calls used today', async () => {
      const { agentId } = await client.createAgent(admin, { label: 'Spender', dailyTokenBudget: 100_000 });
      const nextUtcMidnight = new Date(new Date().setUTCHours(24, 0, 0, 0)).toISOString();

      const fresh = await client.request('GET', `/management/agents/${agentId}/budget`, admin);
      expect(fresh.status).toBe(200);
      expect(fresh.body).toEqual({
        agentId,
        dailyTokenBudget: 100_000,
        used: 0,
        remaining: 100_000,
        resetsAt: nextUtcMidnight,
      });

      // Spend some budget for real: one tool call through /mcp.
      const token = await client.agentToken(admin, agentId);
      const session = await eventually(
        () => mcpInitialize(gateway.url, token),
        (r) => r.status === 200,
      );
      const call = await mcpRequest(gateway.url, token, {
        method: 'tools/call',
        params: { name: 'search_products', arguments: {} },
        sessionId: session.sessionId!,
      });
      expect(call.status, JSON.stringify(call.message)).toBe(200);
      expect(call.message.result.content[0].type).toBe('text');

      const spent = await client.request('GET', `/management/agents/${agentId}/budget`, admin);
      expect(spent.body.used).toBeGreaterThan(0);
      expect(spent.body.remaining).toBe(100_000 - spent.body.used);

      const reset = await client.request('DELETE', `/management/agents/${agentId}/budget`, admin);
      expect(reset.status).toBe(200);
      expect(reset.body).toEqual({
        agentId,
        dailyTokenBudget: 100_000,
        used: 0,
        remaining: 100_000,
        resetsAt: nextUtcMidnight,
      });
      expect((await client.request('GET', `/management/agents/${agentId}/budget`, admin)).body.used).toBe(0);
    });

    it('follows a budget change at once', async () => {
      const { agentId } = await client.createAgent(admin, { label: 'Resized', dailyTokenBudget: 10 });
      await client.request('PUT', `/management/agents/${agentId}`, admin, { dailyTokenBudget: 2500 });
      expect((await client.request('GET', `/management/agents/${agentId}/budget`, admin)).body).toMatchObject({
        dailyTokenBudget: 2500,
        remaining: 2500,
      });
    });
  });

  describe('admin authentication on every management route', () => {
    const id = 'agt_AAAAAAAAAAAAAAAAAAAAAA';
    const routes: Array<[string, string, unknown]> = [
      ['POST', '/management/agents', { label: 'x', dailyTokenBudget: 1 }],
      ['GET', '/management/agents', undefined],
      ['GET', `/management/agents/${id}`, undefined],
      ['PUT', `/management/agents/${id}`, { isActive: false }],
      ['DELETE', `/management/agents/${id}`, undefined],
      ['POST', `/management/agents/${id}/token`, undefined],
      ['GET', `/management/agents/${id}/budget`, undefined],
      ['DELETE', `/management/agents/${id}/budget`, undefined],
    ];
    let credentials: Array<[string, string | undefined]>;

    beforeAll(async () => {
      const { agentId } = await client.createAgent(admin, { label: 'Not an admin', dailyTokenBudget: 10 });
      credentials = [
        ['no token', undefined],
        ['a malformed token', 'not-a-jwt'],
        ['an expired admin token', await expiredAdminToken()],
        ['an admin token signed with another key', await foreignAdminToken()],
        ['an agent token', await client.agentToken(admin, agentId)],
      ];
    });

    it.each(routes)('%s %s answers 401 without a valid admin token', async (method, path, body) => {
      const before = (await client.request('GET', '/management/agents', admin)).body.length;
      for (const [what, token] of credentials) {
        const reply = await client.request(method, path, token, body);
        expect(reply.status, `${what}: ${JSON.stringify(reply.body)}`).toBe(401);
        expectProblem(reply, 401);
        expect(reply.headers.get('WWW-Authenticate')).toBe('Bearer');
        expect(JSON.stringify(reply.body)).not.toContain(token ?? '\u0000');
      }
      expect((await client.request('GET', '/management/agents', admin)).body).toHaveLength(before);
    });

    it('tells an expired admin token apart from an invalid one', async () => {
      const expired = await client.request('GET', '/management/agents', await expiredAdminToken());
      expect(expired.body.detail).toBe('Token expired');
      const foreign = await client.request('GET', '/management/agents', await foreignAdminToken());
      expect(foreign.body.detail).toBe('Invalid token');
    });

    it('refuses an admin token on /mcp with 401 and JSON-RPC -32001', async () => {
      const reply = await mcpInitialize(gateway.url, admin);
      expect(reply.status).toBe(401);
      expect(reply.message).toMatchObject({ jsonrpc: '2.0', error: { code: -32001 } });
    });
  });
});
