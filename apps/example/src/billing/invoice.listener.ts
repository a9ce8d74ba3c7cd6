import { Injectable, Logger } from '@nestjs/common';
import { MessageContext } from '@mmmq/consumer';
import { OrderCreated } from '../orders/order-events';
import { describeRefund, Ledger } from './ledger';
import { OrderEventListener } from './order-event-listener';

/** Method style: any method of any provider can listen. */
@Injectable()
export class InvoiceListener {
  private readonly logger = new Logger('Billing');

  constructor(private readonly ledger: Ledger) {}

  @OrderEventListener('order.created')
  onOrderCreated(order: OrderCreated, context: MessageContext): void {
    // `order` is an OrderCreated instance, already validated: a malformed event never reaches this line.
    for (const entry of this.ledger.invoice(order.orderId, order.amount)) {
      if (entry.kind === 'refund') this.logger.log(describeRefund(entry));
      else
        this.logger.log(
          `Invoice for order ${order.orderId}: ${order.amount.toFixed(2)} (${order.item}, delivery ${context.deliveryCount})`,
        );
    }
  }
}
