import { describe, expect, it } from 'vitest';
import { toRoutePattern } from './route-pattern.js';

describe('toRoutePattern', () => {
  it.each([
    ['/orders', '/orders', []],
    ['/orders/:id', '/orders/{id}', ['id']],
    ['/customers/:customerId/orders/:orderId', '/customers/{customerId}/orders/{orderId}', ['customerId', 'orderId']],
    ['/orders/:id{[0-9]+}', '/orders/{id}', ['id']],
    ['/orders/:id{[0-9]{1,6}}', '/orders/{id}', ['id']],
    ['/orders/:id?', '/orders/{id}', ['id']],
    ['/orders/:id{[0-9]+}?', '/orders/{id}', ['id']],
    ['/files/:path{.+}', '/files/{path}', ['path']],
    ['/files/:path{.+/.+}/raw', '/files/{path}/raw', ['path']],
    ['/', '/', []],
  ])('%s -> %s', (honoPath, routePattern, routeParams) => {
    expect(toRoutePattern(honoPath)).toEqual({ ok: true, routePattern, routeParams });
  });

  it.each(['/files/*', '*', '/files/*/raw', '/assets/*.png'])('reports the unnamed wildcard in %s', (honoPath) => {
    expect(toRoutePattern(honoPath)).toEqual({ ok: false, reason: 'unnamed-wildcard' });
  });

  it('keeps a star inside a named regex constraint', () => {
    expect(toRoutePattern('/files/:rest{.*}')).toEqual({
      ok: true,
      routePattern: '/files/{rest}',
      routeParams: ['rest'],
    });
  });
});
