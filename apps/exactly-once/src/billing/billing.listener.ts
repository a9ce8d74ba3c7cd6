import { Injectable, Logger } from '@nestjs/common';
import { MessageContext, MMMQListener } from '@mmmq/consumer';
import type { EntityManager } from 'typeorm';
import { ORDER_PLACED, OrderPlaced } from '../orders/order-placed';
import { Charge } from './charge.entity';
import { LostAcknowledgements } from './lost-acknowledgements';

/** Billing's consumer id: the inbox remembers the messages processed per consumer id. */
export const BILLING_CONSUMER_ID = 'billing.order-placed';

@Injectable()
export class BillingListener {
  private readonly logger = new Logger('Billing');

  constructor(private readonly lostAcknowledgements: LostAcknowledgements) {}

  /**
   * `inbox: true`: each delivery runs in a transaction that first reserves (message id, consumer id) in
   * `mmmq_inbox`; a message processed before is acknowledged without running this method. The charge is written in
   * that same transaction, so the charge and the reservation commit together or not at all.
   */
  @MMMQListener(ORDER_PLACED, { consumerId: BILLING_CONSUMER_ID, inbox: true })
  async charge(order: OrderPlaced, context: MessageContext): Promise<void> {
    const manager = context.inboxTransaction<EntityManager>();
    await manager.insert(Charge, {
      orderId: order.orderId,
      amount: order.amount,
      messageId: context.id,
      deliveryCount: context.deliveryCount,
    });
    this.lostAcknowledgements.chargedIn(manager, context.id);
    this.logger.log(
      `Charged order ${order.orderId}: ${order.amount.toFixed(2)} (message ${context.id}, delivery ${context.deliveryCount})`,
    );
  }
}
