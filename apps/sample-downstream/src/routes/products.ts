import { withAgentTool } from '@tollgate/host-kit';
import type { Hono } from 'hono';
import { z } from 'zod';
import type { Store } from '../data/store.js';
import { notFound } from '../http/errors.js';
import { parseInput } from '../http/validate.js';
import { SAMPLE_TOOLS } from '../tools.js';

const productRoute = z.object({ sku: z.string().min(1).describe('Product SKU, e.g. KB-100') });

const searchQuery = z.object({
  q: z.string().optional().describe('Words to find in the product name'),
  category: z.enum(['hardware', 'accessories', 'software']).optional(),
  maxPriceCents: z.coerce.number().int().min(0).optional().describe('Only products at or below this price, in cents'),
  inStock: z
    .enum(['true', 'false'])
    .transform((value) => value === 'true')
    .optional()
    .describe('true: only products with stock left'),
});

/**
 * Words two searches must share (or both lack) to be answered alike: categories and product types, with their synonyms.
 */
const SEARCH_TERMS = [
  'hardware',
  ['accessories', 'accessory'],
  'software',
  'keyboard',
  ['mouse', 'mice'],
  ['monitor', 'screen', 'display'],
  ['dock', 'docking station', 'hub'],
  ['cable', 'cord', 'lead'],
  ['pad', 'mat', 'mousepad'],
  'stand',
  ['licence', 'license'],
  'subscription',
  'laptop',
  'desk',
  'usb',
  'vpn',
  'ide',
];

/** `/products`: registered on the app itself (no group). */
export function registerProductRoutes(app: Hono, store: Store): void {
  app.get(
    '/products',
    withAgentTool({
      name: SAMPLE_TOOLS.searchProducts,
      description: 'Search the product catalog by name, category, price and stock.',
      category: 'catalog',
      input: { query: searchQuery },
      // A free-text search: the gateway may answer a query from an earlier one of the same meaning,
      // but never across the catalogue's categories and product types.
      cache: { semantic: true, significantTerms: SEARCH_TERMS },
    }),
    (c) => {
      const { q, category, maxPriceCents, inStock } = parseInput(searchQuery, c.req.query(), 'query');
      const words = q?.toLowerCase().split(/\s+/).filter(Boolean) ?? [];
      const products = store.products.filter(
        (p) =>
          words.every((word) => p.name.toLowerCase().includes(word)) &&
          (!category || p.category === category) &&
          (maxPriceCents === undefined || p.priceCents <= maxPriceCents) &&
          (!inStock || p.stock > 0),
      );
      return c.json({ total: products.length, products });
    },
  );

  app.get(
    '/products/:sku',
    withAgentTool({
      name: SAMPLE_TOOLS.getProduct,
      description: 'Get one product by SKU with its price and stock.',
      input: { route: productRoute },
    }),
    (c) => {
      const { sku } = parseInput(productRoute, c.req.param(), 'route');
      const product = store.product(sku);
      if (!product) throw notFound(`Product ${sku}`);
      return c.json(product);
    },
  );
}
