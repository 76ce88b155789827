import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInToDashboard } from './support/dashboard-session.js';
import { createAgentWithToken, openRawSession, rawCall } from './support/mcp.js';
import { startPair, type Pair } from './support/pair.js';
import { eventually } from './support/processes.js';

/**
 * The audit page's export (issue 29): the records matching the filters (agent
 * by label, tool, outcome, time range) as JSON Lines or CSV, streamed.
 */
describe('dashboard audit export (dist/main.js)', () => {
  let pair: Pair;
  let cookie: string;
  let agentId: string;

  beforeAll(async () => {
    pair = await startPair();
    const admin = await pair.adminToken();
    const agent = await createAgentWithToken(pair.api, admin, { label: 'Exported agent', dailyTokenBudget: 1_000_000 });
    agentId = agent.agentId;
    const other = await createAgentWithToken(pair.api, admin, { label: 'Someone else', dailyTokenBudget: 1_000_000 });
    for (const [who, id] of [
      [agent, 1001],
      [agent, 1002],
      [other, 1003],
    ] as const) {
      const { sessionId } = await openRawSession(pair.url, who.token);
      await rawCall(pair.url, who.token, sessionId, 'tools/call', { name: 'get_order', arguments: { id } }, 5);
    }
    ({ cookie } = await signInToDashboard(pair.gateway));
  }, 60_000);
  afterAll(() => pair?.stop());

  const get = (query: string) => fetch(`${pair.url}/dashboard/audit/export?${query}`, { headers: { cookie } });

  it('exports one agent, named by its label, as JSON Lines with labels', async () => {
    const lines = await eventually(
      async () =>
        (await (await get('format=jsonl&agent=Exported%20agent&outcome=ok')).text()).trim().split('\n').filter(Boolean),
      (found) => found.length === 2,
    );
    const records = lines.map((line) => JSON.parse(line));
    expect(records.map((r) => [r.agentId, r.agentLabel, r.tool, r.outcome])).toEqual([
      [agentId, 'Exported agent', 'get_order', 'ok'],
      [agentId, 'Exported agent', 'get_order', 'ok'],
    ]);
  });

  it('exports CSV with a header, and a time range that excludes everything', async () => {
    const response = await get('format=csv&tool=get_order');
    expect(response.headers.get('content-type')).toContain('text/csv');
    expect(response.headers.get('content-disposition')).toContain('tollgate-audit.csv');
    const rows = (await response.text()).trim().split('\r\n');
    expect(rows[0]).toMatch(/^id,time,kind,agentId,agentLabel,/);
    expect(rows.length).toBe(1 + 3);
    const future = await (await get('format=jsonl&from=2099-01-01T00:00')).text();
    expect(future).toBe('');
  });

  const page = (query: string) =>
    fetch(`${pair.url}/dashboard/audit?${query}`, { headers: { cookie } }).then((response) => response.text());
  const listed = (html: string) => (html.match(/data-audit-id=/g) ?? []).length;
  /** A datetime-local value (UTC), as the page's own form sends it. */
  const local = (ms: number) => new Date(ms).toISOString().slice(0, 16);

  it('lists only the time range the audit page is given, and hands that range to the export', async () => {
    const since = local(Date.now() - 10 * 60_000);
    const until = local(Date.now() + 10 * 60_000);
    await eventually(
      () => page(`tool=get_order&from=${since}`),
      (html) => listed(html) === 3,
    );
    expect(listed(await page(`tool=get_order&from=${since}&to=${until}`))).toBe(3);
    const future = await page(`tool=get_order&from=${local(Date.now() + 60 * 60_000)}`);
    expect(listed(future)).toBe(0);
    expect(future).toContain('No audit records match');
    expect(listed(await page(`tool=get_order&to=2000-01-01T00:00`))).toBe(0);
    // The range is in the filter form, kept for the export (hidden fields) and for the pager's links.
    const html = await page(`tool=get_order&from=${since}&to=${until}`);
    expect(html).toMatch(new RegExp(`<input[^>]*id="filter-from"[^>]*value="${since}"`));
    const exportForm = html.slice(html.indexOf('action="/dashboard/audit/export"'));
    expect(exportForm).toMatch(new RegExp(`<input type="hidden" name="from" value="${since}"`));
    expect(exportForm).toMatch(new RegExp(`<input type="hidden" name="to" value="${until}"`));
  });

  it('needs a dashboard session', async () => {
    const response = await fetch(`${pair.url}/dashboard/audit/export?format=csv`, { redirect: 'manual' });
    expect([302, 303, 401]).toContain(response.status);
  });
});
