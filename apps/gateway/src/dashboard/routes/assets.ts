import { Hono, type Context } from 'hono';
import { ENHANCEMENT_SCRIPT, STYLESHEET, type Asset } from '../assets.js';
import type { DashboardEnv } from '../env.js';
import { serveFavicon } from '../favicon.js';

/** The stylesheet, the script and the icon: served before the session check, the sign-in page needs them too. */
export function assetPages(): Hono<DashboardEnv> {
  const app = new Hono<DashboardEnv>();
  for (const asset of [STYLESHEET, ENHANCEMENT_SCRIPT]) app.get(asset.path, (c) => serveAsset(c, asset));
  app.get('/favicon.svg', serveFavicon);
  return app;
}

function serveAsset(c: Context, asset: Asset): Response {
  // The path carries the content hash: a new build is a new URL.
  return c.body(asset.body, 200, {
    'Content-Type': asset.contentType,
    'Cache-Control': 'public, max-age=31536000, immutable',
  });
}
