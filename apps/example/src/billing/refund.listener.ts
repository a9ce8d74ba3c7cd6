import { Injectable, Logger } from '@nestjs/common';
import { MMMQListener } from '@mmmq/consumer';
import { OrderCancelled } from '../orders/order-events';
import { describeRefund, Ledger } from './ledger';

/** Interface style: a class with `listens()` and `handle()`. */
@Injectable()
export class RefundListener implements MMMQListener<OrderCancelled> {
  readonly contentType = OrderCancelled;
  private readonly logger = new Logger('Billing');

  constructor(private readonly ledger: Ledger) {}

  listens(): string {
    return 'order.cancelled';
  }

  handle(event: OrderCancelled): void {
    const refund = this.ledger.cancel(event.orderId, event.reason);
    if (refund === 'held') this.logger.log(`Cancellation of order ${event.orderId} arrived before its invoice; refunding once invoiced`);
    else if (refund) this.logger.log(describeRefund(refund));
  }
}
