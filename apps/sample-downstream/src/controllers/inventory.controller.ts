import { AgentTool, Controller, Get, Post, type FromServices, type Int } from '@tollgate/host-kit';
import type { Store } from '../data/store.js';
import { ApiError, notFound } from '../http/errors.js';

/** Largest single restock; a typo like 10000 instead of 100 should not slip through. */
const MAX_RESTOCK = 1000;

interface Restock {
  /** Units to add, 1-1000. */
  quantity: Int;
  /** Supplier delivery reference, e.g. DN-4711. */
  reference?: string | null;
}

/** The annotation form of marking tools: read by `host-kit build` at build time. */
@Controller('/inventory')
export class InventoryController {
  /** @param sku - Product SKU, e.g. KB-100. */
  @Get('/:sku')
  @AgentTool({ description: 'Stock level of one product, and whether it can be ordered now.', category: 'catalog' })
  stockLevel(sku: string, store: FromServices<Store>) {
    const product = store.product(sku);
    if (!product) throw notFound(`Product ${sku}`);
    return { sku, stock: product.stock, orderable: product.stock > 0 };
  }

  /** @param sku - Product SKU, e.g. KB-100. */
  @Post('/:sku/restock')
  @AgentTool({
    description: 'Add delivered units to the stock of one product.',
    allowWrite: true,
    category: 'catalog',
    requiredScopes: ['catalog:write'],
  })
  restockProduct(sku: string, restock: Restock, store: FromServices<Store>) {
    const product = store.product(sku);
    if (!product) throw notFound(`Product ${sku}`);
    if (restock.quantity < 1 || restock.quantity > MAX_RESTOCK) {
      throw new ApiError(400, 'invalid_request', `quantity must be from 1 to ${MAX_RESTOCK}`);
    }
    product.stock += restock.quantity;
    return { sku, stock: product.stock, reference: restock.reference ?? null };
  }
}
