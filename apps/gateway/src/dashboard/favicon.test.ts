import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { FAVICON_SVG, serveFavicon } from './favicon.js';

describe('serveFavicon', () => {
  it('answers the inline SVG as image/svg+xml, cached for a week, never sniffed or run', async () => {
    const app = new Hono().get('/favicon.ico', serveFavicon);
    const response = await app.request('/favicon.ico');
    expect(response.status).toBe(200);
    expect(response.headers.get('Content-Type')).toBe('image/svg+xml');
    expect(response.headers.get('Cache-Control')).toBe('public, max-age=604800');
    expect(response.headers.get('X-Content-Type-Options')).toBe('nosniff');
    expect(response.headers.get('Content-Security-Policy')).toBe("default-src 'none'");
    expect(await response.text()).toBe(FAVICON_SVG);
    expect(FAVICON_SVG).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" viewBox="0 0 32 32">[\s\S]*<\/svg>\n$/);
    expect(FAVICON_SVG).not.toMatch(/<script|on\w+=/i);
  });
});
