import type { Context } from 'hono';

/**
 * The gateway's icon, a toll barrier, as inline SVG kept in the bundle like
 * the other dashboard assets. The dashboard links it; `/favicon.ico` answers
 * it too, for browsers and tools that ask there on their own (without it,
 * every page they open logs a 404).
 */
export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">
<rect width="32" height="32" rx="6" fill="#111827"/>
<rect x="5" y="9" width="4" height="17" rx="1" fill="#e5e7eb"/>
<rect x="9" y="12" width="19" height="5" rx="1" fill="#f59e0b"/>
<path d="M13 12h3l-3 5h-3zM20 12h3l-3 5h-3z" fill="#111827"/>
</svg>
`;

export const FAVICON_PATH = '/dashboard/favicon.svg';

/** The icon, cached for a week (its URL is fixed, so not for good), never sniffed, never run as a document. */
export function serveFavicon(c: Context): Response {
  return c.body(FAVICON_SVG, 200, {
    'Content-Type': 'image/svg+xml',
    'Cache-Control': 'public, max-age=604800',
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': "default-src 'none'",
  });
}
