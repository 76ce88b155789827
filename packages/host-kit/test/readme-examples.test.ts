import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import app from '../examples/endpoint-form.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const example = readFileSync(new URL('../examples/endpoint-form.ts', import.meta.url), 'utf8');

/**
 * The README's endpoint-form example is examples/endpoint-form.ts word for
 * word (type-checked by `pnpm typecheck`, which includes examples/), and it
 * does what the README says: /gw/schema describes `note` as nullable and
 * optional, and the handler takes an order with a null note or none.
 */
describe('the README endpoint-form example', () => {
  it('is shown in the README exactly as the example file', () => {
    expect(readme).toContain(`\`\`\`ts\n${example}\`\`\``);
  });

  it('serves /gw/schema with a nullable note that an agent may leave out', async () => {
    const tools = (await (await app.request('/gw/schema')).json()) as Array<{
      name: string;
      inputSchema: { properties: Record<string, { type: unknown }>; required: string[] };
    }>;
    expect(tools.map((tool) => tool.name)).toEqual(['get_order', 'place_order', 'update_customer']);
    const placeOrder = tools.find((tool) => tool.name === 'place_order')!;
    expect(placeOrder.inputSchema.properties.note?.type).toEqual(['string', 'null']);
    expect(placeOrder.inputSchema.required).toEqual(['customerId', 'lines']);
    expect(placeOrder.inputSchema.properties.notify?.type).toBe('boolean');
  });

  it('places an order whose note is null or left out, and refuses a bad one with a 400', async () => {
    const post = (body: unknown) =>
      app.request('/orders', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const lines = [{ sku: 'KB-100', quantity: 1 }];
    const withNull = await post({ customerId: 1, lines, note: null });
    expect(withNull.status).toBe(201);
    const without = await post({ customerId: 1, lines });
    expect(without.status).toBe(201);
    expect(((await without.json()) as { note: unknown }).note).toBeNull();
    expect((await post({ customerId: 'x', lines })).status).toBe(400);
    expect((await app.request('/orders/1001')).status).toBe(200);
  });
});
