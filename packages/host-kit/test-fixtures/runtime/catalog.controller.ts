import type { Context } from 'hono';
import {
  AgentTool,
  Controller,
  Delete,
  Get,
  Post,
  Put,
  type FromBody,
  type FromHeader,
  type FromQuery,
  type FromServices,
  type Int,
} from '@tollgate/host-kit';

export class Inventory {
  readonly stock = new Map<string, number>([['sku-1', 3]]);
}

interface Restock {
  quantity: Int;
  /** When the delivery arrives. */
  arrivesAt?: Date;
  tags: string[];
}

@Controller('/catalog')
export class CatalogController {
  @Get('/items/:sku')
  @AgentTool({ description: 'Reads the stock of one item.' })
  getItem(sku: string, inventory: FromServices<Inventory>, c: Context, verbose = false) {
    return { sku, stock: inventory.stock.get(sku) ?? 0, verbose, path: c.req.path };
  }

  @Get('/pages/:page')
  @AgentTool({ description: 'Lists one page.' })
  listPage(page: Int, limit?: Int, ratio?: number, since?: Date, big?: bigint, tag?: FromQuery<string[]>) {
    return { page, limit: limit ?? null, ratio: ratio ?? null, since: since?.toISOString() ?? null, big: big?.toString() ?? null, tag: tag ?? [] };
  }

  @Put('/items/:sku')
  @AgentTool({ description: 'Restocks one item.', allowWrite: true })
  restock(sku: string, body: Restock, requestId?: FromHeader<string>) {
    return {
      sku,
      quantity: body.quantity,
      arrivesIsDate: body.arrivesAt instanceof Date,
      tags: body.tags,
      requestId: requestId ?? null,
    };
  }

  @Post('/notes')
  addNote(text: FromBody<string>, pinned?: FromBody<boolean>): Response {
    return new Response(JSON.stringify({ text, pinned: pinned ?? false }), { status: 201 });
  }

  @Delete('/items/:sku')
  removeItem(sku: string, signal: AbortSignal) {
    void sku;
    void signal.aborted;
  }
}

@Controller()
export class NotMountedController {
  @Get('/ping')
  ping() {
    return 'pong';
  }
}
