import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayClient } from './support/gateway-client.js';
import { createAgentWithToken, openRawSession, rawCall, mcpRaw, type TestAgent } from './support/mcp.js';
import { startPair, type Pair } from './support/pair.js';
import { eventually, type RunningProcess } from './support/processes.js';
import { redisServerAvailable } from './support/redis-guard.js';

const redisAvailable = redisServerAvailable('usage counters on Redis against the audit trail');

interface Record_ {
  kind: string;
  agentId: string | null;
  tool: string | null;
  outcome: string;
  tokensCharged: number;
}

interface Figures {
  group?: string;
  calls: number;
  tokens: number;
  cacheHits: number;
  errors: number;
}

/** Every tool-call record of the trail (all pages). */
async function toolCalls(api: GatewayClient, admin: string): Promise<Record_[]> {
  const records: Record_[] = [];
  let cursor: string | null = null;
  do {
    const before: string = cursor === null ? '' : `&before=${encodeURIComponent(cursor)}`;
    const page = await api.request('GET', `/management/audit?limit=500${before}`, admin);
    records.push(...page.body.records);
    cursor = page.body.nextCursor;
  } while (cursor !== null);
  return records.filter((record) => record.kind === 'tool-call');
}

/** Per group value: calls and tokens, as the trail counts them. */
function sums(
  records: Record_[],
  group: (record: Record_) => string,
): Record<string, { calls: number; tokens: number }> {
  const out: Record<string, { calls: number; tokens: number }> = {};
  for (const record of records) {
    const key = group(record);
    out[key] ??= { calls: 0, tokens: 0 };
    out[key].calls += 1;
    out[key].tokens += record.tokensCharged;
  }
  return out;
}

const asSums = (totals: Figures[]) =>
  Object.fromEntries(totals.map((t) => [t.group ?? '', { calls: t.calls, tokens: t.tokens }]));

/**
 * Usage over time (issue 29): after a mixed load (successes, cache hits,
 * budget and allowlist refusals, unknown tools, invalid arguments, a bad
 * token), the counters of GET /management/usage add up to the audit trail
 * exactly, per agent, tool and outcome; and bad queries are 400s.
 */
describe(`usage over time (dist/main.js, ${redisAvailable ? 'Redis' : 'in-memory'} store)`, () => {
  let pair: Pair<RunningProcess, boolean>;
  let api: GatewayClient;
  let admin: string;
  let url: string;

  beforeAll(async () => {
    pair = await startPair({ redis: redisAvailable });
    ({ api, url } = pair);
    admin = await pair.adminToken();
  });
  afterAll(() => pair?.stop());

  async function calls(agent: TestAgent, list: Array<[string, Record<string, unknown>]>): Promise<void> {
    const { sessionId } = await openRawSession(url, agent.token);
    let id = 10;
    for (const [name, args] of list)
      await rawCall(url, agent.token, sessionId, 'tools/call', { name, arguments: args }, id++);
  }

  it('adds up to the audit trail after a mixed load, per agent, tool and outcome', async () => {
    const busy = await createAgentWithToken(api, admin, { label: 'Busy reader', dailyTokenBudget: 1_000_000 });
    const narrow = await createAgentWithToken(api, admin, {
      label: 'Narrow agent',
      dailyTokenBudget: 1_000_000,
      allowedTools: ['get_order'],
    });
    const poor = await createAgentWithToken(api, admin, { label: 'Poor agent', dailyTokenBudget: 1 });
    await calls(busy, [
      ['search_products', { q: 'mouse' }],
      ['search_products', { q: 'mouse' }],
      ['search_products', { q: 'mouse' }],
      ['get_order', { id: 1001 }],
      ['get_product', { sku: 'KB-100' }],
      ['no_such_tool', {}],
      ['get_order', { id: 'not a number' }],
    ]);
    await calls(narrow, [
      ['get_order', { id: 1002 }],
      ['search_products', { q: 'desk' }],
      ['get_customer', { id: 1 }],
    ]);
    await calls(poor, [
      ['get_order', { id: 1001 }],
      ['get_order', { id: 1003 }],
    ]);
    // Refused before the caller is known: counted with no agent.
    await mcpRaw(
      url,
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_order', arguments: { id: 1 } } },
      { token: 'not-a-token' },
    );
    // The refused one is on the trail too: waiting for 12 records only raced its audit write (seen once under load).
    const made = 7 + 3 + 2 + 1;

    const trail = await eventually(
      () => toolCalls(api, admin),
      (records) => records.length >= made,
    );
    const outcomes = new Set(trail.map((r) => r.outcome));
    for (const expected of [
      'ok',
      'cache-hit',
      'unknown-tool',
      'invalid-arguments',
      'not-allowlisted',
      'budget-exhausted',
    ])
      expect(outcomes).toContain(expected);

    const query = (groupBy: string) => api.request('GET', `/management/usage?interval=hour&groupBy=${groupBy}`, admin);
    const byAgent = await eventually(
      () => query('agent'),
      (answer) =>
        answer.status === 200 && (answer.body.totals as Figures[]).reduce((n, t) => n + t.calls, 0) === trail.length,
    );
    expect(asSums(byAgent.body.totals)).toEqual(sums(trail, (r) => r.agentId ?? ''));
    expect(byAgent.body.labels).toMatchObject({
      [busy.agentId]: 'Busy reader',
      [narrow.agentId]: 'Narrow agent',
      [poor.agentId]: 'Poor agent',
    });
    expect(asSums((await query('tool')).body.totals)).toEqual(sums(trail, (r) => r.tool ?? ''));
    const byOutcome = (await query('outcome')).body;
    expect(asSums(byOutcome.totals)).toEqual(sums(trail, (r) => r.outcome));
    const hits = trail.filter((r) => r.outcome === 'cache-hit').length;
    expect(byOutcome.totals.find((t: Figures) => t.group === 'cache-hit')).toMatchObject({
      calls: hits,
      cacheHits: hits,
    });

    // Ungrouped: 24 hourly buckets plus the current hour, summing to the trail, errors split by class.
    const plain = (await api.request('GET', '/management/usage', admin)).body;
    expect(plain.buckets).toHaveLength(25);
    const total = plain.totals[0];
    expect(total.calls).toBe(trail.length);
    expect(total.tokens).toBe(trail.reduce((n, r) => n + r.tokensCharged, 0));
    expect(total.outcomes['agent-mistake']).toBe(
      trail.filter((r) => r.outcome === 'unknown-tool' || r.outcome === 'invalid-arguments').length,
    );
    expect(total.outcomes.refusal).toBe(
      trail.filter((r) => ['not-allowlisted', 'budget-exhausted', 'unauthorized'].includes(r.outcome)).length,
    );
    expect(total.latencyMs.p95).toBeGreaterThanOrEqual(total.latencyMs.p50);

    // One agent, by day.
    const one = (await api.request('GET', `/management/usage?interval=day&agentId=${busy.agentId}`, admin)).body;
    expect(one.totals[0].calls).toBe(7);
    expect(one.labels).toEqual({ [busy.agentId]: 'Busy reader' });
  });

  it('answers a bad query with a 400 naming the parameter, and nothing without an admin token', async () => {
    for (const [query, field] of [
      ['from=yesterday', 'from'],
      ['interval=week', 'interval'],
      ['groupBy=colour', 'groupBy'],
      ['from=2030-01-02T00:00:00Z&to=2030-01-01T00:00:00Z', 'from'],
      ['from=2029-01-01T00:00:00Z&to=2030-01-01T00:00:00Z', 'from'],
      ['agentId=..%2Fx', 'agentId'],
    ] as const) {
      const answer = await api.request('GET', `/management/usage?${query}`, admin);
      expect(answer.status, query).toBe(400);
      expect(JSON.stringify(answer.body), query).toContain(field);
    }
    expect((await api.request('GET', '/management/usage', undefined)).status).toBe(401);
  });
});
