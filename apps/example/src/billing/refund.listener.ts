import { Injectable, Logger } from '@nestjs/common';
import { MMMQListener, Payload } from '@mmmq/consumer';
import { OrderCancelled } from '../orders/order-events';
import { Ledger } from './ledger';
import { OrderEventListener } from './order-event-listener';

/**
 * Class style: the class decorator makes it a listener, and `handle()` receives each message. `@Payload()` makes
 * TypeScript record the parameter's type, so the content is converted to and validated as an `OrderCancelled`.
 */
@Injectable()
@OrderEventListener('order.cancelled')
export class RefundListener implements MMMQListener<OrderCancelled> {
  private readonly logger = new Logger('Billing');

  constructor(private readonly ledger: Ledger) {}

  handle(@Payload() event: OrderCancelled): void {
    const amount = this.ledger.refund(event.orderId);
    if (amount !== undefined) this.logger.log(`Refund for order ${event.orderId}: ${amount.toFixed(2)} (${event.reason})`);
  }
}
