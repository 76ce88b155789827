import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayClient } from './support/gateway-client.js';
import { decodeJwtPayload } from './support/jwt.js';
import { mcpInitialize } from './support/mcp-probe.js';
import { rawRequest } from './support/raw-http.js';
import { startPair, type Pair } from './support/pair.js';
import { eventually, type RunningProcess } from './support/processes.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** This machine's first non-loopback IPv4 address, if it has one. */
function nonLoopbackAddress(): string | undefined {
  return Object.values(networkInterfaces())
    .flat()
    .find((address) => address && address.family === 'IPv4' && !address.internal)?.address;
}

const SAMPLE_SCOPES = ['catalog:write', 'customers:read', 'customers:write', 'orders:read', 'orders:write'];

describe('development endpoints (contract 4.1)', () => {
  let pair: Pair;
  let development: RunningProcess;
  let production: RunningProcess;

  beforeAll(async () => {
    pair = await startPair({ gateway: [{ development: true, adminApiKey: null }, {}], ready: false });
    [development, production] = [pair.gateways[0]!, pair.gateways[1]!];
  });
  afterAll(() => pair?.stop());

  describe('in development mode', () => {
    it('GET /dev/admin-token from loopback: {token, expiresAt}, an admin token for Gw:Admin:TokenExpiryDays (90)', async () => {
      const response = await fetch(`${development.url}/dev/admin-token`);
      expect(response.status).toBe(200);
      expect(response.headers.get('Cache-Control')).toBe('no-store');
      const body = (await response.json()) as { token: string; expiresAt: string };
      expect(Object.keys(body).sort()).toEqual(['expiresAt', 'token']);
      expect(Math.abs(Date.parse(body.expiresAt) - (Date.now() + 90 * DAY_MS))).toBeLessThan(60_000);
      expect(decodeJwtPayload(body.token)).toMatchObject({ sub: 'admin', aud: 'tollgate:admin' });

      const client = new GatewayClient(development.url);
      expect((await client.request('GET', '/management/agents', body.token)).status).toBe(200);
    });

    it.each([
      ['X-Forwarded-For', { 'X-Forwarded-For': '203.0.113.9' }],
      ['X-Forwarded-For naming loopback', { 'X-Forwarded-For': '127.0.0.1' }],
      ['Forwarded', { Forwarded: 'for=203.0.113.9' }],
      ['X-Real-IP', { 'X-Real-IP': '203.0.113.9' }],
    ])('GET /dev/admin-token relayed by a proxy (%s) answers 404', async (_, headers) => {
      const response = await fetch(`${development.url}/dev/admin-token`, { headers });
      expect(response.status).toBe(404);
      expect(response.headers.get('Content-Type')).toMatch(/^application\/problem\+json/);
      expect(await response.text()).not.toMatch(/"token"/);
    });

    const localAddress = nonLoopbackAddress();
    it.skipIf(!localAddress)(
      `GET /dev/admin-token from a non-loopback address (${localAddress ?? 'none on this machine'}) answers 404`,
      async () => {
        // The gateway stays bound to 127.0.0.1; leaving from an interface address makes it see a non-loopback peer.
        const refused = await rawRequest(`${development.url}/dev/admin-token`, { localAddress });
        expect(refused.status).toBe(404);
        expect(refused.body).not.toMatch(/"token"/);
        // The same route over the same kind of connection works from loopback, so the 404 is the address check.
        expect((await rawRequest(`${development.url}/dev/admin-token`, { localAddress: '127.0.0.1' })).status).toBe(
          200,
        );
      },
    );

    it('GET /dev/token: a short-lived token of one development agent that may call every tool', async () => {
      const response = await fetch(`${development.url}/dev/token`);
      expect(response.status).toBe(200);
      const body = (await response.json()) as { token: string; expiresAt: string };
      expect(Object.keys(body).sort()).toEqual(['expiresAt', 'token']);
      const lifetime = Date.parse(body.expiresAt) - Date.now();
      expect(lifetime).toBeGreaterThan(60 * 60 * 1000);
      expect(lifetime).toBeLessThanOrEqual(DAY_MS);

      const claims = decodeJwtPayload(body.token);
      expect(claims).toMatchObject({ aud: 'tollgate:agent', sub: expect.stringMatching(/^agt_/) });
      expect([...(claims.scopes as string[])].sort()).toEqual(SAMPLE_SCOPES);

      const again = decodeJwtPayload(
        ((await (await fetch(`${development.url}/dev/token`)).json()) as { token: string }).token,
      );
      expect(again.sub).toBe(claims.sub);

      const initialized = await eventually(
        () => mcpInitialize(development.url, body.token),
        (reply) => reply.status !== 503,
      );
      expect(initialized.status).toBe(200);
      expect(initialized.sessionId).toBeTruthy();
    });

    it('shows the development agent in the management API, once, and revives it when it was deactivated', async () => {
      const client = new GatewayClient(development.url);
      const admin = ((await (await fetch(`${development.url}/dev/admin-token`)).json()) as { token: string }).token;
      const devToken = ((await (await fetch(`${development.url}/dev/token`)).json()) as { token: string }).token;
      const agentId = decodeJwtPayload(devToken).sub as string;

      const listed = await client.request('GET', '/management/agents', admin);
      expect(listed.body.filter((agent: { agentId: string }) => agent.agentId === agentId)).toHaveLength(1);
      expect((await client.request('GET', `/management/agents/${agentId}`, admin)).body).toMatchObject({
        label: 'development agent',
        isActive: true,
      });

      await client.request('PUT', `/management/agents/${agentId}`, admin, { isActive: false });
      expect((await mcpInitialize(development.url, devToken)).status).toBe(401);

      const fresh = ((await (await fetch(`${development.url}/dev/token`)).json()) as { token: string }).token;
      expect(decodeJwtPayload(fresh).sub).toBe(agentId);
      expect((await mcpInitialize(development.url, fresh)).status).toBe(200);
    });

    it('a development agent token is no admin token', async () => {
      const devToken = ((await (await fetch(`${development.url}/dev/token`)).json()) as { token: string }).token;
      expect((await new GatewayClient(development.url).request('GET', '/management/agents', devToken)).status).toBe(
        401,
      );
    });

    it('POST /auth/admin/token still answers 404 without a configured key', async () => {
      const response = await fetch(`${development.url}/auth/admin/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ apiKey: 'anything' }),
      });
      expect(response.status).toBe(404);
    });
  });

  describe('outside development mode', () => {
    it.each(['/dev/admin-token', '/dev/token'])(
      'GET %s answers 404 from loopback, like a path that does not exist',
      async (path) => {
        const response = await fetch(`${production.url}${path}`);
        const unknown = await fetch(`${production.url}/dev/no-such-endpoint`);
        expect(response.status).toBe(404);
        expect(response.headers.get('Content-Type')).toMatch(/^application\/problem\+json/);
        expect(await response.json()).toEqual(await unknown.json());
      },
    );

    it('creates no development agent', async () => {
      const client = new GatewayClient(production.url);
      await fetch(`${production.url}/dev/token`);
      expect((await client.request('GET', '/management/agents', await client.adminToken())).body).toEqual([]);
    });
  });
});
