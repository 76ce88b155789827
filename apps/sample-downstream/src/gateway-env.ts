import type { RequireGatewayOptions } from '@tollgate/host-kit';

/** Where `pnpm dev` runs the gateway. */
export const DEFAULT_GATEWAY_JWKS_URL = 'http://127.0.0.1:8080/.well-known/jwks.json';

export type GatewayEnv = { ok: true; gateway: RequireGatewayOptions | undefined } | { ok: false; problem: string };

/**
 * The sample's trust in the gateway, from its environment: on unless
 * `REQUIRE_GATEWAY=false` (the sample run alone, called directly).
 * `GATEWAY_AUDIENCE` defaults to the sample's own address on 127.0.0.1,
 * what the gateway's `Gw:ToolRegistry:DownstreamBaseUrl` names when both run
 * on one machine.
 */
export function gatewayFromEnv(env: NodeJS.ProcessEnv, port: number): GatewayEnv {
  const required = (env.REQUIRE_GATEWAY ?? 'true').trim().toLowerCase();
  if (required === 'false' || required === '0') return { ok: true, gateway: undefined };
  if (required !== 'true' && required !== '1')
    return { ok: false, problem: `REQUIRE_GATEWAY must be true or false, got "${env.REQUIRE_GATEWAY}"` };
  const cacheSeconds = env.GATEWAY_JWKS_CACHE_SECONDS?.trim();
  if (cacheSeconds && !(Number(cacheSeconds) > 0))
    return { ok: false, problem: `GATEWAY_JWKS_CACHE_SECONDS must be a positive number, got "${cacheSeconds}"` };
  return {
    ok: true,
    gateway: {
      jwks: env.GATEWAY_JWKS_URL?.trim() || DEFAULT_GATEWAY_JWKS_URL,
      audience: env.GATEWAY_AUDIENCE?.trim() || `http://127.0.0.1:${port}`,
      ...(env.GATEWAY_ISSUER?.trim() ? { issuer: env.GATEWAY_ISSUER.trim() } : {}),
      ...(cacheSeconds ? { jwksCacheSeconds: Number(cacheSeconds) } : {}),
    },
  };
}
