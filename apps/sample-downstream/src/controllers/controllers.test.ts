import type { ToolDefinition } from '@tollgate/host-kit';
import { describe, expect, it } from 'vitest';
import { createApp } from '../app.js';

const post = (body: unknown) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

describe('sample downstream: annotated controllers', () => {
  it('serves the annotated tools at /gw/schema beside the endpoint tools', async () => {
    const tools = (await (await createApp().request('/gw/schema')).json()) as ToolDefinition[];
    expect(tools.find((t) => t.name === 'restockProduct')).toEqual({
      name: 'restockProduct',
      description: 'Add delivered units to the stock of one product.',
      allowWrite: true,
      maxResponseTokens: 2000,
      category: 'catalog',
      requiredScopes: ['catalog:write'],
      httpMethod: 'POST',
      routePattern: '/inventory/{sku}/restock',
      parameterSources: { sku: 'route', quantity: 'body', reference: 'body' },
      inputSchema: {
        type: 'object',
        properties: {
          sku: { type: 'string', description: 'Product SKU, e.g. KB-100.' },
          quantity: { type: 'integer', description: 'Units to add, 1-1000.' },
          reference: { type: ['string', 'null'], description: 'Supplier delivery reference, e.g. DN-4711.' },
        },
        required: ['sku', 'quantity'],
      },
    });
    expect(tools.find((t) => t.name === 'salesReport')?.parameterSources).toEqual({
      since: 'query',
      customerId: 'query',
    });
    expect(tools.some((t) => t.name === 'list_orders')).toBe(true);
  });

  it('binds route, body and the Store service', async () => {
    const app = createApp();
    const before = (await (await app.request('/inventory/KB-100')).json()) as { stock: number };
    const restocked = await app.request('/inventory/KB-100/restock', post({ quantity: 5, reference: 'DN-4711' }));
    expect(restocked.status).toBe(200);
    expect(await restocked.json()).toEqual({ sku: 'KB-100', stock: before.stock + 5, reference: 'DN-4711' });
  });

  it('answers 400 for input that does not match the declared types, 404 for an unknown product', async () => {
    const app = createApp();
    const wrongType = await app.request('/inventory/KB-100/restock', post({ quantity: 'five' }));
    expect(wrongType.status).toBe(400);
    expect(await wrongType.json()).toEqual({
      error: 'invalid_parameter',
      message: 'body property "quantity" must be an integer, got "five"',
    });
    expect((await app.request('/inventory/KB-100/restock', post({ quantity: 5000 }))).status).toBe(400);
    expect((await app.request('/reports/sales?since=yesterday')).status).toBe(400);
    expect((await app.request('/inventory/NOPE-1')).status).toBe(404);
  });

  it('filters the sales report by converted query values', async () => {
    const app = createApp();
    const all = (await (await app.request('/reports/sales')).json()) as { orders: number };
    const future = (await (await app.request('/reports/sales?since=2999-01-01T00:00:00Z')).json()) as {
      orders: number;
    };
    expect(all.orders).toBe(300);
    expect(future.orders).toBe(0);
  });
});
