import { Injectable, Logger } from '@nestjs/common';
import { MMMQListener } from '@mmmq/consumer';
import { OrderCancelled } from '../orders/order-events';
import { Ledger } from './ledger';

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
    const amount = this.ledger.refund(event.orderId);
    if (amount !== undefined) this.logger.log(`Refund for order ${event.orderId}: ${amount.toFixed(2)} (${event.reason})`);
  }
}
