import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayClient } from './support/gateway-client.js';
import { decodeJwtPayload } from './support/jwt.js';
import { rawRequest } from './support/raw-http.js';
import { startPair, type Pair } from './support/pair.js';
import { TEST_ADMIN_KEY, type RunningProcess } from './support/processes.js';

const DAY_MS = 24 * 60 * 60 * 1000;

function postAdminToken(gatewayUrl: string, body: string, contentType = 'application/json'): Promise<Response> {
  return fetch(`${gatewayUrl}/auth/admin/token`, { method: 'POST', headers: { 'Content-Type': contentType }, body });
}

async function expectProblem(response: Response, status: number): Promise<Record<string, any>> {
  expect(response.status).toBe(status);
  expect(response.headers.get('Content-Type')).toMatch(/^application\/problem\+json/);
  const body = (await response.json()) as Record<string, any>;
  expect(body).toMatchObject({ type: 'about:blank', status, title: expect.any(String) });
  return body;
}

describe('POST /auth/admin/token (contract 4.1, 5)', () => {
  let pair: Pair;
  let withDefaults: RunningProcess;
  let withWeekTokens: RunningProcess;
  let withoutKey: RunningProcess;

  beforeAll(async () => {
    // The wrong-key cases below are more than the sign-in throttle's default 5 (sign-in-throttle.test.ts covers it).
    const roomForWrongKeys = { env: { Gw__Admin__SignInMaxFailures: '20' } };
    pair = await startPair({
      gateway: [roomForWrongKeys, { env: { Gw__Admin__TokenExpiryDays: '7' } }, { adminApiKey: null }],
      ready: false,
    });
    [withDefaults, withWeekTokens, withoutKey] = [pair.gateways[0]!, pair.gateways[1]!, pair.gateways[2]!];
  });
  afterAll(() => pair?.stop());

  describe('with an admin API key configured', () => {
    it('exchanges the key for a 90-day admin JWT by default', async () => {
      const requestedAt = Date.now();
      const response = await postAdminToken(withDefaults.url, JSON.stringify({ apiKey: TEST_ADMIN_KEY }));
      expect(response.status).toBe(200);
      expect(response.headers.get('Cache-Control')).toBe('no-store');
      const body = (await response.json()) as { token: string; expiresAt: string };
      expect(Object.keys(body).sort()).toEqual(['expiresAt', 'token']);
      expect(body.expiresAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(Math.abs(Date.parse(body.expiresAt) - (requestedAt + 90 * DAY_MS))).toBeLessThan(60_000);

      const claims = decodeJwtPayload(body.token);
      expect(claims).toMatchObject({ sub: 'admin', aud: 'tollgate:admin', iss: 'tollgate' });
      expect((claims.exp as number) * 1000).toBe(Date.parse(body.expiresAt));
    });

    it('issues tokens that last Gw:Admin:TokenExpiryDays', async () => {
      const response = await postAdminToken(withWeekTokens.url, JSON.stringify({ apiKey: TEST_ADMIN_KEY }));
      expect(response.status).toBe(200);
      const { expiresAt } = (await response.json()) as { expiresAt: string };
      expect(Math.abs(Date.parse(expiresAt) - (Date.now() + 7 * DAY_MS))).toBeLessThan(60_000);
    });

    it('issues a token the management API accepts', async () => {
      const client = new GatewayClient(withDefaults.url);
      const listed = await client.request('GET', '/management/agents', await client.adminToken());
      expect(listed.status).toBe(200);
      expect(listed.body).toEqual([]);
    });

    it.each([
      ['a wrong key of the same length', TEST_ADMIN_KEY.replace(/.$/, (last) => (last === 'f' ? 'e' : 'f'))],
      ['a prefix of the key', TEST_ADMIN_KEY.slice(0, -1)],
      ['the key with a suffix', `${TEST_ADMIN_KEY}0`],
      ['the key in another case', TEST_ADMIN_KEY.toUpperCase()],
      ['an empty key', ''],
      ['a very long key', 'k'.repeat(10_000)],
    ])('answers 401 to %s, without echoing it', async (_, apiKey) => {
      const response = await postAdminToken(withDefaults.url, JSON.stringify({ apiKey }));
      expect(response.headers.get('WWW-Authenticate')).toBe('Bearer');
      const body = await expectProblem(response, 401);
      if (apiKey) expect(JSON.stringify(body)).not.toContain(apiKey);
      expect(body).not.toHaveProperty('token');
    });

    it.each([
      ['no body', '', 'application/json'],
      ['no apiKey', '{}', 'application/json'],
      ['an apiKey that is not a string', '{"apiKey": 12345}', 'application/json'],
      ['an unknown field', JSON.stringify({ apiKey: TEST_ADMIN_KEY, admin: true }), 'application/json'],
      ['invalid JSON', `{"apiKey": "${TEST_ADMIN_KEY}"`, 'application/json'],
      ['a form body', `apiKey=${TEST_ADMIN_KEY}`, 'application/x-www-form-urlencoded'],
    ])('answers 400 to %s', async (_, body, contentType) => {
      const problem = await expectProblem(await postAdminToken(withDefaults.url, body, contentType), 400);
      expect(JSON.stringify(problem)).not.toContain(TEST_ADMIN_KEY);
    });

    it('answers 413 to a body over 16 KiB (read before anyone is signed in), with or without Content-Length', async () => {
      // Own connections: a body refused unread must not leave a half-used socket in fetch's pool.
      const huge = JSON.stringify({ apiKey: 'k'.repeat(2 * 1024 * 1024) });
      const url = `${withDefaults.url}/auth/admin/token`;
      const headers = { 'Content-Type': 'application/json' };
      for (const sent of [{ body: huge }, { chunks: [huge.slice(0, 1024), huge.slice(1024)] }]) {
        const reply = await rawRequest(url, { method: 'POST', headers, ...sent });
        expect(reply.status).toBe(413);
        expect(reply.contentType).toMatch(/^application\/problem\+json/);
        expect(JSON.parse(reply.body)).toMatchObject({
          status: 413,
          detail: expect.stringMatching(/larger than 16384 bytes/),
        });
      }
    });
  });

  describe('without an admin API key', () => {
    it('answers 404 whatever is sent, as if the endpoint did not exist', async () => {
      for (const body of [
        JSON.stringify({ apiKey: TEST_ADMIN_KEY }),
        JSON.stringify({ apiKey: '' }),
        '{}',
        'not json',
      ]) {
        await expectProblem(await postAdminToken(withoutKey.url, body), 404);
      }
    });

    it('still guards the management API', async () => {
      const client = new GatewayClient(withoutKey.url);
      expect((await client.request('GET', '/management/agents', undefined)).status).toBe(401);
    });
  });
});
