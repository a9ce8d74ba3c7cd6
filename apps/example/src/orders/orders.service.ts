import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { Producer } from '@mmmq/producer';
import { OrderCancelled, OrderCreated, OrderEvents } from './order-events';

/** Places and cancels orders; every change is published before the call returns. */
@Injectable()
export class OrdersService {
  private readonly logger = new Logger('OrderService');

  constructor(private readonly producer: Producer<OrderEvents>) {}

  async place(item: string, amount: number): Promise<OrderCreated> {
    const order = { orderId: randomUUID().slice(0, 8), item, amount };
    // The order id doubles as the message id: a retried publish cannot create a second invoice.
    const published = await this.producer.produce('order.created', order, { id: `order-created-${order.orderId}` });
    this.logger.log(`Order ${order.orderId} placed: ${item} for ${amount.toFixed(2)} (order.created @${published.offset})`);
    return order;
  }

  async cancel(orderId: string, reason: string): Promise<OrderCancelled> {
    const event = { orderId, reason };
    const published = await this.producer.produce('order.cancelled', event, { id: `order-cancelled-${orderId}` });
    this.logger.log(`Order ${orderId} cancelled: ${reason} (order.cancelled @${published.offset})`);
    return event;
  }
}
