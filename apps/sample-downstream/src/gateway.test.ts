import { describe, expect, it } from 'vitest';
import { createApp } from './app.js';
import { DEFAULT_GATEWAY_JWKS_URL, gatewayFromEnv } from './gateway-env.js';

describe('the sample trusting only the gateway', () => {
  const app = createApp({
    gateway: { jwks: { keys: [] }, audience: 'http://127.0.0.1:8081', onRefusal: () => undefined },
  });

  it('refuses a direct call to a tool route of either form, and leaves /gw/schema and /health open', async () => {
    for (const path of ['/orders/1001', '/customers/1001', '/products', '/inventory/KB-100']) {
      const response = await app.request(path);
      expect(response.status, path).toBe(401);
      expect(await response.json()).toMatchObject({ error: 'gateway_assertion_required' });
    }
    expect((await app.request('/gw/schema')).status).toBe(200);
    expect((await app.request('/health')).status).toBe(200);
  });

  it('is on by default, with the gateway of pnpm dev and its own address as audience', () => {
    expect(gatewayFromEnv({}, 8081)).toEqual({
      ok: true,
      gateway: { jwks: DEFAULT_GATEWAY_JWKS_URL, audience: 'http://127.0.0.1:8081' },
    });
    expect(gatewayFromEnv({ REQUIRE_GATEWAY: 'false' }, 8081)).toEqual({ ok: true, gateway: undefined });
    expect(
      gatewayFromEnv(
        {
          GATEWAY_JWKS_URL: 'http://gw:8080/.well-known/jwks.json',
          GATEWAY_AUDIENCE: 'orders',
          GATEWAY_ISSUER: 'tg',
          GATEWAY_JWKS_CACHE_SECONDS: '1',
        },
        0,
      ),
    ).toEqual({
      ok: true,
      gateway: { jwks: 'http://gw:8080/.well-known/jwks.json', audience: 'orders', issuer: 'tg', jwksCacheSeconds: 1 },
    });
    expect(gatewayFromEnv({ REQUIRE_GATEWAY: 'maybe' }, 8081)).toMatchObject({ ok: false });
    expect(gatewayFromEnv({ GATEWAY_JWKS_CACHE_SECONDS: '-1' }, 8081)).toMatchObject({ ok: false });
  });
});
