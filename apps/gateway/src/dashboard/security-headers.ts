import { createMiddleware } from 'hono/factory';

/** Pages hold CSRF tokens and one-time agent tokens: never cached, never framed, no inline script. */
export const securityHeaders = createMiddleware(async (c, next) => {
  await next();
  c.header(
    'Content-Security-Policy',
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; " +
      "frame-ancestors 'none'; base-uri 'none'",
  );
  c.header('X-Content-Type-Options', 'nosniff');
  c.header('X-Frame-Options', 'DENY');
  c.header('Referrer-Policy', 'same-origin');
  // Only the assets (hashed, cached for good) and the icon set their own.
  if (!c.res.headers.has('Cache-Control')) c.header('Cache-Control', 'no-store');
});
