import { Hono } from 'hono';
import { findTargetHandler } from 'hono/utils/handler';
import { describe, expect, it } from 'vitest';

// The walk in collect-endpoint-tools relies on these facts of the installed
// hono. If an upgrade changes one, this file says which.
describe('hono routing table', () => {
  const handler = () => new Response('ok');
  const entries = (app: Hono) => app.routes.map(({ method, path }) => `${method} ${path}`);

  it('lists every handler of a route as its own entry', () => {
    const app = new Hono();
    const middleware = async (_c: unknown, next: () => Promise<void>) => next();
    app.get('/a', middleware, handler);
    expect(entries(app)).toEqual(['GET /a', 'GET /a']);
    expect(app.routes.map((r) => r.handler)).toEqual([middleware, handler]);
  });

  it('lists app.all as ALL, app.on as one entry per verb, and no HEAD beside GET', () => {
    const app = new Hono();
    app.all('/all', handler);
    app.on(['PUT', 'patch'], '/on', handler);
    app.get('/get', handler);
    expect(entries(app)).toEqual(['ALL /all', 'PUT /on', 'PATCH /on', 'GET /get']);
  });

  it('puts app.route and basePath prefixes into path', () => {
    const orders = new Hono().basePath('/v1');
    orders.get('/:id', handler);
    const app = new Hono();
    app.route('/orders', orders);
    const api = app.basePath('/api');
    api.get('/ping', handler);
    expect(entries(app)).toEqual(['GET /orders/v1/:id', 'GET /api/ping']);
  });

  it('wraps handlers of a sub-app with its own onError; findTargetHandler unwraps them', () => {
    const sub = new Hono();
    sub.onError((_err, c) => c.text('sub error', 500));
    sub.get('/x', handler);
    const app = new Hono();
    app.route('/sub', sub);
    const [entry] = app.routes;
    expect(entry?.handler).not.toBe(handler);
    expect(findTargetHandler(entry!.handler)).toBe(handler);
  });
});
