import { Hono } from 'hono';
import type { OAuthConfig } from '../config/oauth-section.js';

export interface OAuthMetadataDeps {
  oauth: OAuthConfig;
  /** Every scope a loaded tool requires: what a client may ask the authorization server for. */
  scopes: () => string[];
}

/** RFC 9728 3: the well-known name, and with the MCP endpoint's path after it (what MCP clients ask first). */
const METADATA_PATH = '/.well-known/oauth-protected-resource';

/**
 * Protected resource metadata (RFC 9728): which authorization servers issue
 * tokens for this gateway and which scopes its tools need, so a client given
 * only the gateway's URL can sign in. Public, and the same for every caller;
 * browser clients read it across origins.
 */
export function oauthMetadataRoutes(deps: OAuthMetadataDeps): Hono {
  const app = new Hono();
  const suffixed = new URL(deps.oauth.resourceMetadataUrl).pathname;
  const serve = new Set([METADATA_PATH, suffixed]);
  for (const path of serve) {
    app.get(path, (c) => {
      c.header('Access-Control-Allow-Origin', '*');
      c.header('Cache-Control', 'public, max-age=300');
      return c.json({
        resource: deps.oauth.resource,
        authorization_servers: deps.oauth.issuers.map((issuer) => issuer.issuer),
        scopes_supported: deps.scopes(),
        bearer_methods_supported: ['header'],
        resource_name: 'Tollgate MCP gateway',
      });
    });
  }
  return app;
}
