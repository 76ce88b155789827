import { readFileSync } from 'node:fs';
import type { ToolDefinition } from '@tollgate/host-kit';
import { describe, expect, it } from 'vitest';
import { createApp } from './app.js';
import { SAMPLE_TOOLS } from './tools.js';

const json = (body: unknown) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

async function schema(): Promise<ToolDefinition[]> {
  const res = await createApp().request('/gw/schema');
  expect(res.status).toBe(200);
  return (await res.json()) as ToolDefinition[];
}

describe('sample downstream: GET /gw/schema', () => {
  it('serves every sample tool, sorted by name, and no unmarked endpoint', async () => {
    const tools = await schema();
    expect(tools.map((t) => t.name)).toEqual(Object.values(SAMPLE_TOOLS).sort());
    expect(tools.some((t) => t.routePattern === '/health')).toBe(false);
  });

  it('resolves the multi-verb customer update to PATCH through httpMethod', async () => {
    const update = (await schema()).find((t) => t.name === SAMPLE_TOOLS.updateCustomerContact);
    expect(update).toMatchObject({
      httpMethod: 'PATCH',
      routePattern: '/customers/{id}',
      allowWrite: true,
      requiredScopes: ['customers:write'],
      parameterSources: { id: 'route', email: 'body', phone: 'body', city: 'body' },
      inputSchema: { required: ['id'] },
    });
  });

  it('opts its free-text search, and only that, into the semantic cache tier', async () => {
    const tools = await schema();
    const search = tools.find((t) => t.name === SAMPLE_TOOLS.searchProducts);
    expect(search?.cache).toMatchObject({
      semantic: true,
      significantTerms: expect.arrayContaining(['hardware', 'software']),
    });
    expect(tools.filter((t) => t.cache?.semantic).map((t) => t.name)).toEqual([SAMPLE_TOOLS.searchProducts]);
    // The gateway's evaluation set tests this tool with a copy of its settings: they must not drift apart.
    const evaluation = JSON.parse(
      readFileSync(
        new URL('../../../packages/gateway-core/src/cache/eval/semantic-pairs.json', import.meta.url),
        'utf8',
      ),
    );
    expect(evaluation).toMatchObject({ tool: SAMPLE_TOOLS.searchProducts, argument: 'q', cache: search?.cache });
    expect(search?.inputSchema.properties.q).toMatchObject({ type: 'string' });
  });

  it('describes nested body inputs in their JSON Schema shape', async () => {
    const place = (await schema()).find((t) => t.name === SAMPLE_TOOLS.placeOrder);
    expect(place?.inputSchema.properties.lines).toMatchObject({
      type: 'array',
      description: 'What to order: one entry per product',
      items: { type: 'object', properties: { sku: { type: 'string' }, quantity: { type: 'integer' } } },
    });
    expect(place?.inputSchema.required).toEqual(['customerId', 'lines']);
  });
});

describe('sample downstream: API', () => {
  it('serves customers with their personal data', async () => {
    const res = await createApp().request('/customers/1');
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      id: 1,
      name: 'Ada Lovelace',
      email: 'ada.lovelace@example.com',
      phone: '+1-555-0100',
    });
  });

  it('pages orders up to a large limit', async () => {
    const app = createApp();
    const small = (await (await app.request('/orders')).json()) as { total: number; orders: unknown[] };
    expect(small.orders).toHaveLength(20);
    const large = await app.request('/orders?limit=500');
    const body = (await large.json()) as { total: number; orders: unknown[] };
    expect(body.orders).toHaveLength(body.total);
    expect(JSON.stringify(body).length).toBeGreaterThan(50_000);
  });

  it.each([
    ['/orders?limit=0', 'GET'],
    ['/orders?limit=501', 'GET'],
    ['/orders?status=lost', 'GET'],
    ['/customers?limit=x', 'GET'],
  ])('answers 400 with the issues for %s', async (path, method) => {
    const res = await createApp().request(path, { method });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      error: 'invalid_request',
      issues: [expect.objectContaining({ path: expect.any(String) })],
    });
  });

  it('answers 400 for a body that is not JSON or misses fields', async () => {
    const app = createApp();
    const notJson = await app.request('/orders', { method: 'POST', body: '{' });
    expect(notJson.status).toBe(400);
    const missing = await app.request('/customers', json({ name: 'No Email' }));
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ issues: [expect.objectContaining({ path: 'email' })] });
  });

  it('answers 404 in JSON for unknown records and routes', async () => {
    const app = createApp();
    for (const path of ['/customers/999', '/orders/1', '/products/NOPE', '/nothing-here']) {
      const res = await app.request(path);
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ error: 'not_found' });
    }
  });

  it('places an order that reserves stock, and cancels it to return the stock', async () => {
    const app = createApp();
    const stockOf = async () => ((await (await app.request('/products/MS-210')).json()) as { stock: number }).stock;
    const before = await stockOf();
    const placed = await app.request('/orders', json({ customerId: 2, lines: [{ sku: 'MS-210', quantity: 3 }] }));
    expect(placed.status).toBe(201);
    const order = (await placed.json()) as { id: number; totalCents: number; status: string };
    expect(order).toMatchObject({ totalCents: 3 * 3900, status: 'pending' });
    expect(await stockOf()).toBe(before - 3);
    const cancelled = await app.request(`/orders/${order.id}/cancel`, { method: 'POST' });
    expect(await cancelled.json()).toMatchObject({ status: 'cancelled' });
    expect(await stockOf()).toBe(before);
    expect((await app.request(`/orders/${order.id}/cancel`, { method: 'POST' })).status).toBe(409);
  });

  it('refuses an order the stock cannot cover', async () => {
    const res = await createApp().request('/orders', json({ customerId: 1, lines: [{ sku: 'DK-050', quantity: 1 }] }));
    expect(res.status).toBe(422);
  });

  it('updates contact details with PATCH and PUT alike', async () => {
    const app = createApp();
    for (const method of ['PATCH', 'PUT']) {
      const res = await app.request('/customers/3', { ...json({ phone: `+44-161-${method}` }), method });
      expect(await res.json()).toMatchObject({ id: 3, phone: `+44-161-${method}`, email: 'alan.turing@example.com' });
    }
  });

  it('quotes without changing anything', async () => {
    const res = await createApp().request('/orders/quote', json({ lines: [{ sku: 'KB-100', quantity: 2 }] }));
    expect(await res.json()).toMatchObject({ totalCents: 2 * 12900 });
  });
});
