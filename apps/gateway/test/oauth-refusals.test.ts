import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sameOrigin, send, signInToDashboard } from './support/dashboard-session.js';
import { createAgentWithToken, initializeRequest, mcpRaw, openRawSession, rawCall } from './support/mcp.js';
import { expectInvalidToken, oauthEnv, reserveGatewayUrl } from './support/oauth-gateway.js';
import { TestIssuer } from './support/oidc-provider.js';
import { startPair, type Pair } from './support/pair.js';
import { GET_ITEM_TOOL, type RecordingDownstream } from './support/recording-downstream.js';

/**
 * Issue 17: what the gateway refuses from OAuth issuers, and what it never
 * does with their tokens. Two issuers (oidc-provider in this process): a
 * strict one the gateway trusts for ES256 only, keys at a configured JwksUrl,
 * subjects mapped to agents by the management API; and one whose unknown
 * subjects are provisioned as agents on first sight. Two gateway instances
 * on one Redis, behind one public URL (the second listens elsewhere, as
 * behind a load balancer). The downstream records every request, headers included.
 */

const REPORT_TOOL = {
  ...GET_ITEM_TOOL,
  name: 'get_report',
  description: 'One report by id.',
  requiredScopes: ['reports:read'],
  routePattern: '/reports/{id}',
};
const SCOPES = ['reports:read', 'items:write'];
const TEMPLATE = { dailyTokenBudget: 20_000, allowedTools: ['get_item', 'get_report'], scopes: ['reports:read'] };

describe('OAuth tokens the gateway refuses, and never forwards (issue 17)', { timeout: 60_000 }, () => {
  let strict: TestIssuer;
  let provisioning: TestIssuer;
  let pair: Pair<RecordingDownstream, true>;
  /** The second instance's URL. */
  let other: string;
  let origin: string;
  let resource: string;
  let admin: string;

  beforeAll(async () => {
    [strict, provisioning] = await Promise.all([
      TestIssuer.start({ scopes: SCOPES, accessTokenAlg: 'ES256' }),
      TestIssuer.start({ scopes: SCOPES }),
    ]);
    const reserved = await reserveGatewayUrl();
    ({ origin, resource } = reserved);
    const env = oauthEnv(reserved.port, resource, [
      { issuer: strict.issuer, jwksUrl: strict.jwksUrl, algorithms: ['ES256'] },
      { issuer: provisioning.issuer, provision: TEMPLATE },
    ]);
    pair = await startPair({
      downstream: { recording: [GET_ITEM_TOOL, REPORT_TOOL] },
      redis: true,
      gateway: [{ env }, { env: { ...env, PORT: '0' } }],
    });
    other = pair.gateways[1]!.url;
    admin = await pair.adminToken();
    for (const account of ['alice', 'erin']) {
      await pair.api.createAgent(admin, {
        label: account,
        dailyTokenBudget: 50_000,
        scopes: ['reports:read'],
        externalSubjects: [{ issuer: strict.issuer, subject: account }],
      });
    }
  });
  afterAll(async () => {
    await pair?.stop();
    await Promise.all([strict?.stop(), provisioning?.stop()]);
  });

  const initialize = (token: string, at = pair.url) => mcpRaw(at, initializeRequest('2025-06-18'), { token });
  /** Alice's token as the strict issuer would sign it, with `overrides` (undefined removes a claim). */
  const aliceClaims = (overrides: Record<string, unknown> = {}) =>
    strict.claims({ sub: 'alice', aud: resource, scope: 'reports:read' }, overrides);
  const now = () => Math.floor(Date.now() / 1000);

  it("accepts the well-formed token every refusal below differs from by one thing, and the gateway's own tokens beside it", async () => {
    expect((await initialize(strict.mint(aliceClaims()))).status).toBe(200);
    const own = await createAgentWithToken(pair.api, admin, { label: 'own token', dailyTokenBudget: 1000 });
    expect((await initialize(own.token)).status).toBe(200);
  });

  it.each<[string, () => string]>([
    ['another audience', () => strict.mint(aliceClaims({ aud: 'http://127.0.0.1:1/mcp' }))],
    [
      'an audience list without the gateway',
      () => strict.mint(aliceClaims({ aud: ['https://api.example.com', `${resource}/other`] })),
    ],
    ['another issuer, signed with the trusted key', () => strict.mint(aliceClaims({ iss: 'http://127.0.0.1:1' }))],
    [
      'the issuer with a trailing slash (iss must match exactly)',
      () => strict.mint(aliceClaims({ iss: `${strict.issuer}/` })),
    ],
    ['expired beyond the clock tolerance', () => strict.mint(aliceClaims({ iat: now() - 600, exp: now() - 60 }))],
    ['not valid before a time to come (nbf)', () => strict.mint(aliceClaims({ nbf: now() + 300 }))],
    ['no expiry', () => strict.mint(aliceClaims({ exp: undefined }))],
    [
      "RS256 with the issuer's own published RSA key, the issuer allowed ES256 only",
      () => strict.mint(aliceClaims(), strict.currentKeys.rsa),
    ],
    ['alg none', () => strict.mintUnsigned(aliceClaims())],
    ["HS256 keyed with the issuer's public key", () => strict.mintHmacWithPublicKey(aliceClaims())],
    ['a key the issuer never published, under its kid', () => strict.mintWithForeignKey(aliceClaims())],
    [
      'a subject no agent has, at an issuer that does not provision',
      () => strict.mint(aliceClaims({ sub: 'mallory' })),
    ],
  ])('refuses %s: 401 with Bearer error="invalid_token" and resource_metadata', async (_, token) => {
    expectInvalidToken(await initialize(token()), origin);
  });

  it('refuses the token of a deactivated agent at once, on both instances, in an open session and for a new one', async () => {
    const { accessToken } = await strict.obtainToken({ account: 'erin', resource });
    const sessions = await Promise.all(
      [pair.url, other].map(async (at) => ({ at, ...(await openRawSession(at, accessToken, '2025-06-18')) })),
    );
    const agents = (await pair.api.request('GET', '/management/agents', admin)).body as Array<{
      agentId: string;
      label: string;
    }>;
    const erin = agents.find((agent) => agent.label === 'erin')!;
    for (const { at, sessionId } of sessions) {
      expect(
        (await rawCall(at, accessToken, sessionId, 'tools/call', { name: 'get_item', arguments: { id: 'e1' } })).status,
      ).toBe(200);
    }

    const deactivated = await pair.api.request('PUT', `/management/agents/${erin.agentId}`, admin, { isActive: false });
    expect(deactivated.body.isActive).toBe(false);
    for (const { at, sessionId } of sessions) {
      expectInvalidToken(
        await rawCall(at, accessToken, sessionId, 'tools/call', { name: 'get_item', arguments: { id: 'e2' } }),
        origin,
      );
      expectInvalidToken(await initialize(accessToken, at), origin);
    }
  });

  it('dashboard: the agent form gives an agent a sign-in identity, and names an untrusted issuer or a taken identity on the field', async () => {
    const agent = await pair.api.createAgent(admin, { label: 'gina', dailyTokenBudget: 5000 });
    const gateway = pair.gateways[0]!;
    const { cookie, csrf } = await signInToDashboard(gateway);
    const save = (identities: string) =>
      send(`${gateway.url}/dashboard/agents/${agent.agentId}`, {
        cookie,
        form: { _csrf: csrf, label: 'gina', dailyTokenBudget: '5000', toolAccess: 'all', externalSubjects: identities },
        headers: sameOrigin(gateway),
      });
    const identitiesOf = async () =>
      (await pair.api.request('GET', `/management/agents/${agent.agentId}`, admin)).body.externalSubjects;
    const gina = strict.mint(aliceClaims({ sub: 'gina' }));
    expectInvalidToken(await initialize(gina), origin);

    expect((await save(`${strict.issuer} gina`)).status).toBe(303);
    expect(await identitiesOf()).toEqual([{ issuer: strict.issuer, subject: 'gina' }]);
    expect((await send(`${gateway.url}/dashboard/agents/${agent.agentId}`, { cookie })).text).toMatch(
      new RegExp(`name="identity" value="[^"]+" checked="?"?/?>\\s*<label[^>]*>${strict.issuer} gina</label>`),
    );
    expect((await initialize(gina)).status).toBe(200);

    const untrusted = await save('https://elsewhere.example gina');
    expect(untrusted.status).toBe(400);
    expect(untrusted.text).toContain('Sign-in identities: is not a trusted issuer');
    const taken = await save(`${strict.issuer} alice`);
    expect(taken.status).toBe(400);
    expect(taken.text).toMatch(/Sign-in identities: alice at [^ ]+ already belongs to agent agt_/);
    expect(await identitiesOf()).toEqual([{ issuer: strict.issuer, subject: 'gina' }]);
  });

  it('never forwards the external token to the downstream, in any header, the target or the body', async () => {
    const { accessToken } = await strict.obtainToken({ account: 'alice', resource });
    const mark = pair.downstream.requests.length;
    const { sessionId } = await openRawSession(pair.url, accessToken, '2025-06-18');
    for (const [name, id] of [
      ['get_item', 'i1'],
      ['get_report', 'r1'],
    ] as const) {
      const answer = await rawCall(pair.url, accessToken, sessionId, 'tools/call', { name, arguments: { id } });
      expect(answer.status).toBe(200);
      expect(answer.message.result.isError).toBeFalsy();
    }
    const forwarded = pair.downstream.requests.slice(mark);
    expect(forwarded.map((request) => request.target)).toEqual(['/items/i1', '/reports/r1']);
    const signature = accessToken.split('.')[2]!;
    const headers = pair.downstream.requestHeaders.slice(mark);
    for (const [index, request] of forwarded.entries()) {
      const seen = [request.target, request.body, ...Object.values(headers[index]!).flat()].join('\n');
      expect(seen).not.toContain(accessToken);
      expect(seen).not.toContain(signature);
      expect(headers[index]!.authorization ?? '').not.toContain('Bearer ey');
      // The headers were recorded: the check above looked at something.
      expect(headers[index]!.host).toBe(new URL(pair.downstream.url).host);
    }
  });

  it('provisions one agent on first sight, even for concurrent first calls on two instances, from the template; audit names issuer and subject', async () => {
    const { accessToken } = await provisioning.obtainToken({ account: 'frank', resource });
    // One first call on each instance at once: they race in the shared store.
    const firstCalls = await Promise.all([initialize(accessToken), initialize(accessToken, other)]);
    expect(firstCalls.map((call) => call.status)).toEqual([200, 200]);

    const agents = (await pair.api.request('GET', '/management/agents', admin)).body as Array<Record<string, any>>;
    const franks = agents.filter((agent) =>
      (agent.externalSubjects ?? []).some((subject: any) => subject.subject === 'frank'),
    );
    expect(franks).toHaveLength(1);
    const frank = franks[0]!;
    expect(frank).toMatchObject({
      ...TEMPLATE,
      isActive: true,
      externalSubjects: [{ issuer: provisioning.issuer, subject: 'frank' }],
    });

    const { sessionId } = await openRawSession(pair.url, accessToken, '2025-06-18');
    const answer = await rawCall(pair.url, accessToken, sessionId, 'tools/call', {
      name: 'get_report',
      arguments: { id: 'f1' },
    });
    expect(answer.status).toBe(200);
    expect(answer.message.result.isError).toBeFalsy();

    const audit = await pair.api.request('GET', `/management/audit?agentId=${frank.agentId}&tool=get_report`, admin);
    expect(audit.status).toBe(200);
    expect(audit.body.records).toHaveLength(1);
    expect(audit.body.records[0]).toMatchObject({
      agentId: frank.agentId,
      outcome: 'ok',
      issuer: provisioning.issuer,
      subject: 'frank',
    });
  });

  // Issue 25, finding 6: one rule for a subject, whichever way it enters.
  it.each([
    ['9,000 characters', 'x'.repeat(9000)],
    ['NUL', 'nul\u0000sub'],
    ['a right-to-left override', 'admin\u202Egnp'],
    ['a newline naming another identity', 'mallory\n{issuer} victim'],
  ])(
    'does not provision an agent for a token whose subject holds %s: 401, nothing made, on either instance',
    async (_, subject) => {
      const before = (await pair.api.request('GET', '/management/agents', admin)).body.length;
      const token = provisioning.mint(
        provisioning.claims({
          sub: subject.replace('{issuer}', provisioning.issuer),
          aud: resource,
          scope: 'reports:read',
        }),
      );
      for (const at of [pair.url, other]) expectInvalidToken(await initialize(token, at), origin);
      expect((await pair.api.request('GET', '/management/agents', admin)).body).toHaveLength(before);
    },
  );

  it('refuses the same subject, a misleading label and a scope that is two through the management API and the dashboard, naming the field', async () => {
    const create = (body: Record<string, unknown>) =>
      pair.api.request('POST', '/management/agents', admin, { label: 'ok', dailyTokenBudget: 1, ...body });
    const cases: Array<[Record<string, unknown>, string]> = [
      [
        { externalSubjects: [{ issuer: strict.issuer, subject: `mallory\n${strict.issuer} alice` }] },
        'externalSubjects.0.subject',
      ],
      [{ externalSubjects: [{ issuer: strict.issuer, subject: 'x'.repeat(257) }] }, 'externalSubjects.0.subject'],
      [{ label: 'Support\u202E' }, 'label'],
      [{ label: 'zero\u200Bwidth' }, 'label'],
      [{ scopes: ['reports:read admin:all'] }, 'scopes.0'],
      [{ scopes: ['reports:read\u0000'] }, 'scopes.0'],
    ];
    for (const [body, field] of cases) {
      const reply = await create(body);
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(
        reply.body.errors.some((error: string) => error.startsWith(`${field}:`)),
        JSON.stringify(reply.body.errors),
      ).toBe(true);
    }
    const agent = await pair.api.createAgent(admin, { label: 'hank', dailyTokenBudget: 1 });
    expect(
      (await pair.api.request('PUT', `/management/agents/${agent.agentId}`, admin, { scopes: ['a b'] })).status,
    ).toBe(400);

    const gateway = pair.gateways[0]!;
    const { cookie, csrf } = await signInToDashboard(gateway);
    const save = (fields: Record<string, string>) =>
      send(`${gateway.url}/dashboard/agents/${agent.agentId}`, {
        cookie,
        form: { _csrf: csrf, label: 'hank', dailyTokenBudget: '1', toolAccess: 'all', ...fields },
        headers: sameOrigin(gateway),
      });
    const refusedLabel = await save({ label: 'hank\u202E' });
    expect(refusedLabel.status).toBe(400);
    expect(refusedLabel.text).toContain('Label: must not contain control, bidi-override');
    const refusedSubject = await save({ externalSubjects: `${strict.issuer} a\u0000b` });
    expect(refusedSubject.status).toBe(400);
    expect(refusedSubject.text).toContain('Sign-in identities: must not contain control, bidi-override');
    expect((await pair.api.request('GET', `/management/agents/${agent.agentId}`, admin)).body).toMatchObject({
      label: 'hank',
      externalSubjects: [],
    });
  });

  it('dashboard: saving an agent with several identities unchanged keeps exactly those identities', async () => {
    const identities = [
      { issuer: strict.issuer, subject: 'ivy' },
      { issuer: strict.issuer, subject: '  ivy two  ' },
      { issuer: provisioning.issuer, subject: 'ivy' },
    ];
    const agent = await pair.api.createAgent(admin, {
      label: 'ivy',
      dailyTokenBudget: 1,
      externalSubjects: identities,
    });
    const gateway = pair.gateways[0]!;
    const { cookie, csrf } = await signInToDashboard(gateway);
    const page = (await send(`${gateway.url}/dashboard/agents/${agent.agentId}`, { cookie })).text;
    const boxes = [...page.matchAll(/name="identity" value="([^"]+)"/g)].map((match) => match[1]!);
    expect(boxes).toHaveLength(3);
    const form = new URLSearchParams({
      _csrf: csrf,
      label: 'ivy',
      dailyTokenBudget: '1',
      toolAccess: 'all',
      externalSubjects: '',
    });
    for (const box of boxes) form.append('identity', box);
    const saved = await send(`${gateway.url}/dashboard/agents/${agent.agentId}`, {
      cookie,
      form,
      headers: sameOrigin(gateway),
    });
    expect(saved.status).toBe(303);
    expect((await pair.api.request('GET', `/management/agents/${agent.agentId}`, admin)).body.externalSubjects).toEqual(
      identities,
    );
  });
});
