import { Injectable, Logger } from '@nestjs/common';
import { MMMQListener, Payload } from '@mmmq/consumer';
import { OrderCancelled } from '../orders/order-events';
import { describeRefund, Ledger } from './ledger';
import { OrderEventListener } from './order-event-listener';

/**
 * Class style: implementing `MMMQListener<T>` (`listens()` or the class decorator, which also carries options) makes
 * it a listener, and `handle()` receives each message. `@Payload()` makes
 * TypeScript record the parameter's type, so the content is converted to and validated as an `OrderCancelled`.
 */
@Injectable()
@OrderEventListener('order.cancelled')
export class RefundListener implements MMMQListener<OrderCancelled> {
  private readonly logger = new Logger('Billing');

  constructor(private readonly ledger: Ledger) {}

  handle(@Payload() event: OrderCancelled): void {
    const refund = this.ledger.cancel(event.orderId, event.reason);
    if (refund === 'held') this.logger.log(`Cancellation of order ${event.orderId} arrived before its invoice; refunding once invoiced`);
    else if (refund) this.logger.log(describeRefund(refund));
  }
}
