import { JWKS_PATH, type GatewayAssertionSigner } from '@tollgate/gateway-core';
import { Hono } from 'hono';

/**
 * `GET /.well-known/jwks.json`: the public keys of the gateway's assertions,
 * without authentication (public keys, and downstreams fetch them unaided).
 * The set names the next period's key too, so a verifier reusing it for the
 * max-age given here never meets a key it does not know.
 */
export function jwksRoutes(signer: Pick<GatewayAssertionSigner, 'jwks' | 'jwksMaxAgeSeconds'>): Hono {
  const app = new Hono();
  app.get(JWKS_PATH, (c) => {
    c.header('Cache-Control', `public, max-age=${signer.jwksMaxAgeSeconds}`);
    c.header('Content-Type', 'application/jwk-set+json');
    return c.body(JSON.stringify(signer.jwks()));
  });
  return app;
}
