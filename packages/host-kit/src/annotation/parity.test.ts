import { fileURLToPath } from 'node:url';
import { Hono } from 'hono';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { analyzeProject } from '../analyzer/index.js';
import { mapAgentToolSchema, withAgentTool } from '../index.js';

// Contract 4.6: both forms produce the same tool definition, indistinguishable to the gateway.
const tsconfig = fileURLToPath(new URL('../../test-fixtures/parity/tsconfig.json', import.meta.url));

async function schemaOf(app: Hono): Promise<unknown> {
  const response = await app.request('/gw/schema');
  expect(response.status).toBe(200);
  return response.json();
}

describe('annotation form and endpoint form', () => {
  it('serve identical definitions for the same tool', async () => {
    const { manifest, diagnostics } = analyzeProject({ tsconfig });
    expect(diagnostics).toEqual([]);
    const annotated = mapAgentToolSchema(new Hono(), { manifest });

    const endpoint = new Hono();
    endpoint.put(
      '/orders/:id',
      withAgentTool({
        name: 'updateOrder',
        description: 'Changes an order.',
        allowWrite: true,
        maxResponseTokens: 800,
        category: 'orders',
        requiredScopes: ['orders:write'],
        input: {
          route: z.object({ id: z.number().int().describe('The order id.') }),
          query: z.object({ notify: z.boolean().optional().describe('Whether to email the customer.') }),
          body: z.object({
            quantity: z.number().int().describe('How many items.'),
            note: z.string().nullable().optional(),
            tags: z.array(z.string()),
            lineIds: z.array(z.int()),
            address: z.object({ street: z.string(), zip: z.string().optional() }),
            express: z.boolean(),
            price: z.number(),
          }),
        },
      }),
      (c) => c.json({}),
    );
    endpoint.get('/orders/:id', withAgentTool({ name: 'getOrder', description: 'Reads an order.' }), (c) => c.json({}));
    mapAgentToolSchema(endpoint, { includeMappedEndpoints: true });

    const fromAnnotations = await schemaOf(annotated);
    expect(fromAnnotations).toHaveLength(2);
    expect(await schemaOf(endpoint)).toStrictEqual(fromAnnotations);
  }, 30_000);
});
