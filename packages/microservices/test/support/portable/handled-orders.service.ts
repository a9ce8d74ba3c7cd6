import { Injectable } from '@nestjs/common';
import { OrderCreatedDto } from './order-created.dto';

/** What the application did with the events: the orders its handler received, in arrival order. */
@Injectable()
export class HandledOrders {
  readonly orders: OrderCreatedDto[] = [];

  record(order: OrderCreatedDto): void {
    this.orders.push(order);
  }
}
