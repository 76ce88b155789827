import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayClient } from './support/gateway-client.js';
import { cookieValue, csrfField, send, type Exchange } from './support/dashboard-session.js';
import { startPair, type Pair } from './support/pair.js';
import { eventually, TEST_ADMIN_KEY, type RunningProcess } from './support/processes.js';

describe('dashboard security, against the built gateway', () => {
  let pair: Pair;
  let downstream: RunningProcess;
  let gateway: RunningProcess;
  let client: GatewayClient;
  let admin: string;
  /** Same-origin headers, as a browser sends them with a form of the dashboard. */
  let sameOrigin: Record<string, string>;

  /** Signs in with the API key as the sign-in form does; returns the session cookie header and its CSRF token. */
  async function signIn(
    extraHeaders: Record<string, string> = {},
  ): Promise<{ cookie: string; csrf: string; setCookie: string }> {
    const form = await send(`${gateway.url}/dashboard/sign-in`);
    const signInValue = cookieValue(form.cookies, 'tollgate_sign_in')!;
    const signedIn = await send(`${gateway.url}/dashboard/sign-in`, {
      cookie: `tollgate_sign_in=${signInValue}`,
      form: { _csrf: csrfField(form.text)!, apiKey: TEST_ADMIN_KEY },
      headers: { ...sameOrigin, ...extraHeaders },
    });
    expect(signedIn.status).toBe(303);
    const setCookie = signedIn.cookies.find((cookie) => cookie.startsWith('tollgate_dashboard='))!;
    const cookie = `tollgate_dashboard=${cookieValue(signedIn.cookies, 'tollgate_dashboard')}`;
    const page = await send(`${gateway.url}/dashboard/agents`, { cookie });
    return { cookie, csrf: csrfField(page.text)!, setCookie };
  }

  const agentCount = async () => (await client.request('GET', '/management/agents', admin)).body.length as number;

  beforeAll(async () => {
    pair = await startPair({ ready: false });
    ({ downstream, gateway, api: client } = pair);
    admin = await pair.adminToken();
    sameOrigin = { Origin: gateway.url, 'Sec-Fetch-Site': 'same-origin' };
  });
  afterAll(() => pair?.stop());

  describe('without a session', () => {
    it.each([
      '/dashboard',
      '/dashboard/agents',
      '/dashboard/agents/agt_0000000000000000000000',
      '/dashboard/tools',
      '/dashboard/audit',
      '/dashboard/no-such-page',
    ])('GET %s redirects to sign-in (303)', async (path) => {
      const reply = await send(`${gateway.url}${path}`);
      expect(reply.status).toBe(303);
      expect(reply.location).toBe('/dashboard/sign-in');
    });

    it('an action redirects to sign-in and changes nothing', async () => {
      const before = await agentCount();
      const reply = await send(`${gateway.url}/dashboard/agents`, {
        form: { label: 'sneaky', dailyTokenBudget: '10', toolAccess: 'all' },
        headers: sameOrigin,
      });
      expect(reply.status).toBe(303);
      expect(reply.location).toBe('/dashboard/sign-in');
      expect(await agentCount()).toBe(before);
    });

    it('an agent token opens nothing, as a cookie or as a bearer token; nor does an admin bearer token without the cookie', async () => {
      const { agentId } = await client.createAgent(admin, { label: 'not an admin', dailyTokenBudget: 10 });
      const agentToken = await client.agentToken(admin, agentId);
      for (const init of [
        { cookie: `tollgate_dashboard=${agentToken}` },
        { headers: { Authorization: `Bearer ${agentToken}` } },
        { headers: { Authorization: `Bearer ${admin}` } },
      ]) {
        const reply = await send(`${gateway.url}/dashboard/agents`, init);
        expect(reply.status).toBe(303);
        expect(reply.location).toBe('/dashboard/sign-in');
        expect(reply.text).not.toContain('not an admin');
      }
    });
  });

  describe('signing in', () => {
    it('a wrong API key is refused (401) and starts no session', async () => {
      const form = await send(`${gateway.url}/dashboard/sign-in`);
      const reply = await send(`${gateway.url}/dashboard/sign-in`, {
        cookie: `tollgate_sign_in=${cookieValue(form.cookies, 'tollgate_sign_in')}`,
        form: { _csrf: csrfField(form.text)!, apiKey: `${TEST_ADMIN_KEY}x` },
        headers: sameOrigin,
      });
      expect(reply.status).toBe(401);
      expect(cookieValue(reply.cookies, 'tollgate_dashboard')).toBeUndefined();
    });

    it('the right key without the form token, or from another site, is refused (403)', async () => {
      const form = await send(`${gateway.url}/dashboard/sign-in`);
      const cookie = `tollgate_sign_in=${cookieValue(form.cookies, 'tollgate_sign_in')}`;
      const withoutToken = await send(`${gateway.url}/dashboard/sign-in`, {
        cookie,
        form: { apiKey: TEST_ADMIN_KEY },
        headers: sameOrigin,
      });
      const crossSite = await send(`${gateway.url}/dashboard/sign-in`, {
        cookie,
        form: { _csrf: csrfField(form.text)!, apiKey: TEST_ADMIN_KEY },
        headers: { Origin: 'https://evil.example', 'Sec-Fetch-Site': 'cross-site' },
      });
      for (const reply of [withoutToken, crossSite]) {
        expect(reply.status).toBe(403);
        expect(cookieValue(reply.cookies, 'tollgate_dashboard')).toBeUndefined();
      }
    });

    it('the session cookie is httpOnly, SameSite=Strict, scoped to /dashboard, and Secure behind an HTTPS proxy only', async () => {
      const plain = await signIn();
      expect(plain.setCookie).toMatch(/; HttpOnly/);
      expect(plain.setCookie).toMatch(/; SameSite=Strict/);
      expect(plain.setCookie).toMatch(/; Path=\/dashboard(;|$)/);
      expect(plain.setCookie).not.toMatch(/; Secure/);
      const proxied = await signIn({ 'X-Forwarded-Proto': 'https' });
      expect(proxied.setCookie).toMatch(/; Secure/);
    });

    it('the one-click development sign-in does not exist outside development mode', async () => {
      const reply = await send(`${gateway.url}/dashboard/sign-in/dev`, { form: { _csrf: 'x' }, headers: sameOrigin });
      expect(reply.status).toBe(404);
      expect(cookieValue(reply.cookies, 'tollgate_dashboard')).toBeUndefined();
    });
  });

  describe('changes need the session CSRF token', () => {
    const create = (session: { cookie: string }, form: Record<string, string>, headers: Record<string, string>) =>
      send(`${gateway.url}/dashboard/agents`, {
        cookie: session.cookie,
        form: { label: 'csrf probe', dailyTokenBudget: '10', toolAccess: 'all', ...form },
        headers,
      });

    it("refuses a change without the token, with a wrong one, or with another session's (403), and makes none", async () => {
      const session = await signIn();
      const other = await signIn();
      expect(other.csrf).not.toBe(session.csrf);
      const before = await agentCount();
      for (const form of [{}, { _csrf: 'forged' }, { _csrf: other.csrf }] as Record<string, string>[]) {
        expect((await create(session, form, sameOrigin)).status).toBe(403);
      }
      expect(await agentCount()).toBe(before);
    });

    it('refuses a change with the right token from another origin (403)', async () => {
      const session = await signIn();
      const before = await agentCount();
      const reply = await create(
        session,
        { _csrf: session.csrf },
        { Origin: 'https://evil.example', 'Sec-Fetch-Site': 'cross-site' },
      );
      expect(reply.status).toBe(403);
      expect(await agentCount()).toBe(before);
    });

    it('accepts the change with the token from the same origin, audited with the dashboard session as actor', async () => {
      const session = await signIn();
      const reply = await create(session, { _csrf: session.csrf }, sameOrigin);
      expect(reply.status).toBe(303);
      const agentId = /\/dashboard\/agents\/(agt_[\w-]+)\?done=created$/.exec(reply.location ?? '')?.[1];
      expect(agentId).toBeDefined();
      expect((await client.request('GET', `/management/agents/${agentId}`, admin)).body).toMatchObject({
        label: 'csrf probe',
        dailyTokenBudget: 10,
      });
      await expect
        .poll(async () => (await client.request('GET', `/management/audit?agentId=${agentId}`, admin)).body.records)
        .toEqual([
          expect.objectContaining({
            kind: 'management',
            outcome: 'agent.created',
            agentId,
            actor: expect.stringMatching(/^dashboard:[\w-]+$/),
          }),
        ]);
    });

    it('refuses an invalid agent with 400 naming the field, and creates nothing', async () => {
      const session = await signIn();
      const before = await agentCount();
      const reply = await create(session, { _csrf: session.csrf, dailyTokenBudget: '1.5' }, sameOrigin);
      expect(reply.status).toBe(400);
      expect(reply.text).toContain('Daily token budget');
      expect(await agentCount()).toBe(before);
    });

    it('signing out needs the token too, and clears the cookie', async () => {
      const session = await signIn();
      expect(
        (await send(`${gateway.url}/dashboard/sign-out`, { cookie: session.cookie, form: {}, headers: sameOrigin }))
          .status,
      ).toBe(403);
      const out = await send(`${gateway.url}/dashboard/sign-out`, {
        cookie: session.cookie,
        form: { _csrf: session.csrf },
        headers: sameOrigin,
      });
      expect(out.status).toBe(303);
      expect(out.location).toBe('/dashboard/sign-in');
      expect(out.cookies.find((cookie) => cookie.startsWith('tollgate_dashboard='))).toMatch(
        /^tollgate_dashboard=;.*Max-Age=0/,
      );
    });

    // Last in this group: it stops the downstream.
    it('reloading the tools needs the token; with the downstream gone it answers 502 and keeps serving the tools it has', async () => {
      const session = await signIn();
      const reload = (form: Record<string, string>) =>
        send(`${gateway.url}/dashboard/tools/refresh`, { cookie: session.cookie, form, headers: sameOrigin });
      expect((await reload({})).status).toBe(403);
      const done = await reload({ _csrf: session.csrf });
      expect(done.status).toBe(303);
      expect(done.location).toBe('/dashboard/tools?done=tools-refreshed');

      await downstream.stop();
      const failed = await reload({ _csrf: session.csrf });
      expect(failed.status).toBe(502);
      expect(failed.text).toContain('could not be read; the current tools stay in service');
      expect(failed.text).toContain('data-tool="get_order"');
      expect(failed.text).not.toContain(downstream.url);
      // The log line is written as the answer goes out; under load it can reach the pipe a moment later.
      expect(
        await eventually(
          async () => gateway.output(),
          (output) => /tool refresh from the dashboard failed/.test(output),
          5_000,
        ),
      ).toMatch(/tool refresh from the dashboard failed/);
    });
  });
});

describe('dashboard development sign-in', () => {
  let pair: Pair;
  let gateway: RunningProcess;

  beforeAll(async () => {
    pair = await startPair({ gateway: { development: true }, ready: false });
    ({ gateway } = pair);
  });
  afterAll(() => pair?.stop());

  async function devSignIn(headers: Record<string, string> = {}): Promise<Exchange> {
    const form = await send(`${gateway.url}/dashboard/sign-in`);
    expect(form.text).toContain('Sign in as local developer');
    return send(`${gateway.url}/dashboard/sign-in/dev`, {
      cookie: `tollgate_sign_in=${cookieValue(form.cookies, 'tollgate_sign_in')}`,
      form: { _csrf: csrfField(form.text)! },
      headers: { Origin: gateway.url, 'Sec-Fetch-Site': 'same-origin', ...headers },
    });
  }

  it('signs a loopback browser in with one click', async () => {
    const reply = await devSignIn();
    expect(reply.status).toBe(303);
    expect(reply.location).toBe('/dashboard');
    const cookie = `tollgate_dashboard=${cookieValue(reply.cookies, 'tollgate_dashboard')}`;
    expect((await send(`${gateway.url}/dashboard/agents`, { cookie })).status).toBe(200);
  });

  it('is not offered through a proxy (forwarding headers) or under a non-loopback host name (DNS rebinding)', async () => {
    for (const headers of [
      { 'X-Forwarded-For': '203.0.113.7' },
      { Host: 'rebound.example:80', Origin: 'http://rebound.example:80' },
    ] as Record<string, string>[]) {
      const reply = await devSignIn(headers);
      expect(reply.status).toBe(404);
      expect(cookieValue(reply.cookies, 'tollgate_dashboard')).toBeUndefined();
    }
  });
});
