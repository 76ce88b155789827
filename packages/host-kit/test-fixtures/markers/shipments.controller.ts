import { AgentTool, Controller, Get, Post, type FromBody, type FromHeader, type FromQuery, type FromRoute, type FromServices } from '@tollgate/host-kit';

export class LabelRepository {
  save(label: string): string {
    return label;
  }
}

/** A user alias of a marker still marks. */
type OrderId = FromRoute<string>;

@Controller('shipments')
export class ShipmentsController {
  @Post('/:orderId/labels')
  @AgentTool({ description: 'Creates a shipping label.', allowWrite: true })
  createLabel(
    orderId: OrderId,
    carrier: FromQuery<string>,
    weight: FromBody<number>,
    express: FromBody<boolean> | undefined,
    traceId: FromHeader<string>,
    labels: FromServices<LabelRepository>,
    tags?: FromQuery<string[]>,
  ) {
    return labels.save(`${orderId}:${carrier}:${weight}:${express}:${traceId}:${tags}`);
  }

  /** An unmarked array is a body value. */
  @Post('/bulk')
  @AgentTool({ description: 'Books many shipments.', allowWrite: true, httpMethod: 'post' })
  bookMany(orderIds: string[]) {
    return orderIds;
  }

  @Get('/:id')
  @AgentTool({ description: 'Reads a shipment.', httpMethod: 'GET' })
  getShipment(id: string, requestedBy?: FromHeader<string>) {
    return { id, requestedBy };
  }
}
