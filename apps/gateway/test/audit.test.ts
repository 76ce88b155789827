import { TokenService } from '@tollgate/gateway-core';
import { countTokens } from '@tollgate/gateway-core/internal';
import { startRedisServer, type RedisServer } from '@tollgate/gateway-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditedCall, type AuditRecord, type AuditedCall } from './support/audited-call.js';
import { GatewayClient } from './support/gateway-client.js';
import { decodeJwtPayload } from './support/jwt.js';
import { createAgentWithToken, openRawSession, rawCall, waitUntilReady, type TestAgent } from './support/mcp.js';
import { startPair, type Pair } from './support/pair.js';
import { startDownstream, startGateway, type RunningProcess } from './support/processes.js';
import { redisServerAvailable } from './support/redis-guard.js';
import { HTTP_STATUS_DELIVERY } from './support/delivery.js';

const redisAvailable = redisServerAvailable(
  'the audit trail on Redis (pagination over streams, records kept across a graceful shutdown)',
);

/** An argument value that must never be stored or logged: only its digest may be. */
const DISTINCTIVE = 'quokka-zebra-7741';

const jwtId = (token: string) => decodeJwtPayload(token).jti as string;

/** Every record of a query, walking `before` cursors page by page. */
async function walk(api: GatewayClient, admin: string, path: string, limit: number): Promise<AuditRecord[]> {
  const records: AuditRecord[] = [];
  let cursor: string | null = null;
  const separator = path.includes('?') ? '&' : '?';
  do {
    const before: string = cursor === null ? '' : `&before=${encodeURIComponent(cursor)}`;
    const page = await api.request('GET', `${path}${separator}limit=${limit}${before}`, admin);
    expect(page.status).toBe(200);
    expect(page.body.records.length).toBeLessThanOrEqual(limit);
    records.push(...page.body.records);
    cursor = page.body.nextCursor;
  } while (cursor !== null);
  return records;
}

/**
 * The audit trail at process level (issue 7): exactly one record per
 * tools/call whatever its outcome, with the fields of contract 1 and never the
 * raw arguments; management changes with the admin token as actor; newest
 * first, cursor pages, filters, bad queries; kept across a graceful shutdown.
 */
describe('audit trail (dist/main.js + sample downstream)', () => {
  let downstream: RunningProcess;

  beforeAll(async () => {
    downstream = await startDownstream();
  });
  afterAll(async () => {
    await downstream?.stop();
  });

  describe(`one gateway (${redisAvailable ? 'Redis' : 'in-memory'} store)`, () => {
    let pair: Pair<RunningProcess, boolean>;
    let gateway: RunningProcess;
    let api: GatewayClient;
    let admin: string;
    let agent: TestAgent;

    beforeAll(async () => {
      pair = await startPair({ downstream, redis: redisAvailable, gateway: { env: HTTP_STATUS_DELIVERY } });
      ({ gateway, api } = pair);
      admin = await pair.adminToken();
      agent = await createAgentWithToken(api, admin, {
        label: 'audited',
        dailyTokenBudget: 1_000_000,
        allowedTools: ['get_order', 'search_products', 'get_product', 'get_customer', 'quote_order'],
      });
    });
    afterAll(() => pair?.stop());

    const call = (name: string, args: Record<string, unknown>, as: TestAgent = agent, token?: string) =>
      auditedCall(gateway.url, api, admin, as.token, name, args, token === undefined ? {} : { token });

    /** The fields every tool-call record has, whatever its outcome. */
    function expectWellFormed(made: AuditedCall, expected: Partial<AuditRecord>): void {
      const { record } = made;
      expect(record).toMatchObject({
        kind: 'tool-call',
        actor: null,
        requestId: expect.stringMatching(/^call-/),
        ...expected,
      });
      expect(Date.now() - Date.parse(record.time)).toBeLessThan(60_000);
      expect(record.gatewayMs).toBeGreaterThanOrEqual(0);
      expect(record.httpStatus).toBe(made.reply.status);
      expect(record.jsonRpcCode).toBe(made.reply.status === 200 ? null : made.reply.message.error.code);
      // A session on every call here: the record names the one the call was made in.
      if (record.agentId !== null) expect(record.sessionId).toEqual(expect.any(String));
    }

    it('ok: tool, session, tokens charged, downstream status and time, digest of the arguments', async () => {
      const made = await call('get_order', { id: 1001 });
      expect(made.reply.status).toBe(200);
      expectWellFormed(made, {
        outcome: 'ok',
        agentId: agent.agentId,
        tool: 'get_order',
        tokensCharged: countTokens(made.text!),
        cacheTier: null,
        downstreamStatus: 200,
        argsDigest: expect.stringMatching(/^[0-9a-f]{64}$/),
      });
      expect(made.record.downstreamMs).toBeGreaterThan(0);
    });

    it('cache-hit: cache tier, no downstream, charged', async () => {
      const first = await call('get_order', { id: 1002 });
      const made = await call('get_order', { id: 1002 });
      expectWellFormed(made, {
        outcome: 'cache-hit',
        agentId: agent.agentId,
        tool: 'get_order',
        cacheTier: 'exact',
        downstreamStatus: null,
        downstreamMs: null,
        tokensCharged: first.record.tokensCharged,
        argsDigest: first.record.argsDigest,
      });
    });

    it('unauthorized: a token the gateway did not sign, recorded without an agent', async () => {
      const foreign = new TokenService({ signingKey: 'a-different-signing-key-of-at-least-32-bytes' });
      const { token: forged } = await foreign.issueAgentToken({
        agentId: agent.agentId,
        scopes: [],
        generation: 0,
        expiresInDays: 1,
      });
      const made = await call('get_order', { id: 1001 }, agent, forged);
      expect(made.reply.status).toBe(401);
      expectWellFormed(made, {
        outcome: 'unauthorized',
        agentId: null,
        sessionId: null,
        tokensCharged: 0,
        cacheTier: null,
        downstreamStatus: null,
      });
    });

    it.each([
      ['forbidden (a scope missing)', 'get_customer', { id: 1 }, 403, 'forbidden'],
      ['not-allowlisted', 'list_orders', { limit: 1 }, 403, 'not-allowlisted'],
      [
        'write-blocked (POST without allowWrite)',
        'quote_order',
        { lines: [{ sku: 'KB-100', quantity: 1 }] },
        403,
        'write-blocked',
      ],
      ['invalid-arguments', 'get_order', { id: DISTINCTIVE }, 400, 'invalid-arguments'],
      ['unknown-tool', 'no_such_tool', { id: 1 }, 400, 'unknown-tool'],
      ['downstream-error (downstream 404)', 'get_product', { sku: 'NO-SUCH-SKU' }, 502, 'downstream-error'],
    ] as const)('%s', async (_, tool, args, status, outcome) => {
      const made = await call(tool, args);
      expect(made.reply.status).toBe(status);
      expectWellFormed(made, { outcome, agentId: agent.agentId, tokensCharged: 0, cacheTier: null });
      // The tool is named once the registry knows it; an unknown name is caller input and stays out.
      expect(made.record.tool).toBe(outcome === 'unknown-tool' ? null : tool);
      expect(made.record.downstreamStatus).toBe(outcome === 'downstream-error' ? 404 : null);
      if (outcome === 'downstream-error') expect(made.record.downstreamMs).toBeGreaterThan(0);
    });

    it('budget-exhausted', async () => {
      const broke = await createAgentWithToken(api, admin, { label: 'no budget', dailyTokenBudget: 0 });
      const made = await call('get_order', { id: 1001 }, broke);
      expect(made.reply.status).toBe(429);
      expectWellFormed(made, {
        outcome: 'budget-exhausted',
        agentId: broke.agentId,
        tool: 'get_order',
        tokensCharged: 0,
        downstreamStatus: null,
      });
    });

    it('never stores or logs raw argument values, only their digest', async () => {
      const made = await call('search_products', { q: `${DISTINCTIVE} desk lamp` });
      expect(made.reply.status).toBe(200);
      expect(made.record.argsDigest).toMatch(/^[0-9a-f]{64}$/);
      const everything = await walk(api, admin, '/management/audit', 500);
      expect(everything.length).toBeGreaterThan(10);
      expect(JSON.stringify(everything)).not.toContain(DISTINCTIVE);
      expect(gateway.output()).toContain('"msg":"audit"');
      expect(gateway.output()).not.toContain(DISTINCTIVE);
    });

    it('records each management change once, with the admin token as actor', async () => {
      const actor = `admin:${jwtId(admin)}`;
      const managed = await api.createAgent(admin, { label: 'managed', dailyTokenBudget: 10 });
      const id = managed.agentId;
      expect((await api.request('PUT', `/management/agents/${id}`, admin, { dailyTokenBudget: 20 })).status).toBe(200);
      await api.agentToken(admin, id);
      expect((await api.request('DELETE', `/management/agents/${id}/budget`, admin)).status).toBe(200);
      expect((await api.request('DELETE', `/management/agents/${id}`, admin)).status).toBe(204);
      expect((await api.request('POST', '/management/tools/refresh', admin)).status).toBe(200);

      const forAgent = await walk(api, admin, `/management/audit?agentId=${id}`, 100);
      expect(forAgent.map((record) => record.outcome)).toEqual([
        'agent.deleted',
        'agent.budget-reset',
        'agent.token-issued',
        'agent.updated',
        'agent.created',
      ]);
      // A deleted agent's own trail stays readable.
      const own = await api.request('GET', `/management/agents/${id}/audit`, admin);
      expect(own.status).toBe(200);
      expect(own.body.records.map((record: { outcome: string }) => record.outcome)).toEqual(
        forAgent.map((record) => record.outcome),
      );
      for (const record of forAgent)
        expect(record).toMatchObject({
          kind: 'management',
          agentId: id,
          actor,
          tool: null,
          argsDigest: null,
          tokensCharged: 0,
        });

      const [refreshed] = await walk(api, admin, '/management/audit?outcome=tools.refreshed', 100);
      expect(refreshed).toMatchObject({ kind: 'management', outcome: 'tools.refreshed', actor, agentId: null });
      expect(Date.now() - Date.parse(refreshed!.time)).toBeLessThan(60_000);
    });

    it('pages newest first through every record with limit and before, without duplicates or gaps', async () => {
      const paged = await createAgentWithToken(api, admin, { label: 'paged', dailyTokenBudget: 1_000_000 });
      const { sessionId } = await openRawSession(gateway.url, paged.token);
      for (let id = 1010; id < 1017; id += 1) {
        expect(
          (await rawCall(gateway.url, paged.token, sessionId, 'tools/call', { name: 'get_order', arguments: { id } }))
            .status,
        ).toBe(200);
      }
      // 7 calls, plus agent.created and agent.token-issued.
      const whole = await walk(api, admin, `/management/agents/${paged.agentId}/audit`, 500);
      expect(whole.length).toBe(9);
      expect(whole.slice(-2).map((record) => record.outcome)).toEqual(['agent.token-issued', 'agent.created']);
      for (const limit of [1, 2, 4]) {
        expect(await walk(api, admin, `/management/agents/${paged.agentId}/audit`, limit)).toEqual(whole);
        expect(await walk(api, admin, `/management/audit?agentId=${paged.agentId}`, limit)).toEqual(whole);
      }
      const ids = whole.map((record) => record.id);
      expect(new Set(ids).size).toBe(ids.length);
      const times = whole.map((record) => Date.parse(record.time));
      expect(times).toEqual([...times].sort((a, b) => b - a));

      // The whole trail too: the cursor walk and one big page agree.
      const all = await walk(api, admin, '/management/audit', 500);
      expect(await walk(api, admin, '/management/audit', 7)).toEqual(all);
    });

    it('filters /management/audit by tool, outcome and agent', async () => {
      const byTool = await walk(api, admin, '/management/audit?tool=get_order', 100);
      expect(byTool.length).toBeGreaterThan(5);
      for (const record of byTool) expect(record.tool).toBe('get_order');
      const byOutcome = await walk(api, admin, '/management/audit?outcome=cache-hit', 100);
      expect(byOutcome.length).toBeGreaterThan(0);
      for (const record of byOutcome) expect(record.outcome).toBe('cache-hit');
      const byAgent = await walk(api, admin, `/management/audit?agentId=${agent.agentId}&outcome=forbidden`, 100);
      expect(byAgent.length).toBe(1);
      expect(byAgent[0]).toMatchObject({ agentId: agent.agentId, outcome: 'forbidden', tool: 'get_customer' });
      const combined = await walk(
        api,
        admin,
        `/management/agents/${agent.agentId}/audit?tool=get_order&outcome=ok`,
        100,
      );
      expect(combined.length).toBeGreaterThan(0);
      for (const record of combined)
        expect(record).toMatchObject({ agentId: agent.agentId, tool: 'get_order', outcome: 'ok' });
    });

    it.each([
      ['limit=0'],
      ['limit=501'],
      ['limit=abc'],
      ['limit=-1'],
      ['limit=1.5'],
      ['before=not-a-cursor'],
      ['before=9999999999999999999999-0'],
    ])('answers a bad query (%s) with a 400 problem', async (query) => {
      for (const path of [`/management/audit?${query}`, `/management/agents/${agent.agentId}/audit?${query}`]) {
        const reply = await api.request('GET', path, admin);
        expect(reply.status).toBe(400);
        expect(reply.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(reply.body).toMatchObject({ status: 400, title: expect.any(String) });
      }
    });

    it('answers 404 for the audit of an unknown agent, and 401 without an admin token', async () => {
      const unknown = await api.request('GET', '/management/agents/agt_doesnotexist0000000000/audit', admin);
      expect(unknown.status).toBe(404);
      expect(unknown.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect((await api.request('GET', '/management/audit', undefined)).status).toBe(401);
      expect((await api.request('GET', '/management/audit', agent.token)).status).toBe(401);
    });
  });

  describe.runIf(redisAvailable)('graceful shutdown (Redis)', () => {
    let redis: RedisServer;
    let reader: RunningProcess | undefined;

    beforeAll(async () => {
      redis = await startRedisServer();
    });
    afterAll(async () => {
      await reader?.stop();
      await redis?.stop();
    });

    it('keeps every record written just before SIGTERM; a new gateway on the same Redis reads them', async () => {
      const first = await startGateway({ downstreamUrl: downstream.url, redisUrl: redis.url });
      await waitUntilReady(first.url);
      const api = new GatewayClient(first.url);
      const admin = await api.adminToken();
      const agent = await createAgentWithToken(api, admin, { label: 'shut down', dailyTokenBudget: 1_000_000 });
      const { sessionId } = await openRawSession(first.url, agent.token);
      const CALLS = 25;
      const replies = await Promise.all(
        Array.from({ length: CALLS }, (_, index) =>
          rawCall(
            first.url,
            agent.token,
            sessionId,
            'tools/call',
            { name: 'get_order', arguments: { id: 1100 + index } },
            index + 1,
          ),
        ),
      );
      for (const reply of replies) expect(reply.status).toBe(200);
      // Straight away: the trail is written off the hot path, so some records are still queued.
      expect(await first.stop('SIGTERM')).toBe(0);

      reader = await startGateway({ downstreamUrl: downstream.url, redisUrl: redis.url });
      await waitUntilReady(reader.url);
      const readerApi = new GatewayClient(reader.url);
      const records = await walk(
        readerApi,
        await readerApi.adminToken(),
        `/management/agents/${agent.agentId}/audit`,
        500,
      );
      const calls = records.filter((record) => record.kind === 'tool-call');
      expect(calls.length).toBe(CALLS);
      for (const record of calls) expect(record).toMatchObject({ outcome: 'ok', tool: 'get_order', sessionId });
      expect(records.filter((record) => record.kind === 'management').map((record) => record.outcome)).toEqual([
        'agent.token-issued',
        'agent.created',
      ]);
    });
  });
});
