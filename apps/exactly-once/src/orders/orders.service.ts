import { randomUUID } from 'node:crypto';
import { Injectable, Logger, NotFoundException, UnprocessableEntityException } from '@nestjs/common';
import { OUTBOX_TABLE, Outbox, OutboxStatus } from '@mmmq/postgres';
import { DataSource, EntityManager } from 'typeorm';
import { InjectConfig } from '../database/database.module';
import type { ExactlyOnceConfig } from '../exactly-once-config';
import { Order } from './order.entity';
import { ORDER_PLACED, OrderPlaced, orderPlacedMessageId } from './order-placed';

/** Orders above this amount are refused (see {@link OrdersService.place}). */
export const MAX_ORDER_AMOUNT = 10_000;

export interface PlacedOrder extends OrderPlaced {
  /** The id of its `order.placed` message (the outbox row's `message_id`). */
  messageId: string;
}

export interface OrderView {
  order: Order;
  /** Its `order.placed` row in the outbox: PENDING until the relay published it, then PUBLISHED (until retention). */
  event: { messageId: string; status: OutboxStatus; brokerOffset: number | null; publishedAt: Date | null } | null;
}

/** The order service: an order and its event are written in one transaction; the relay publishes the event. */
@Injectable()
export class OrdersService {
  private readonly logger = new Logger('OrderService');

  constructor(
    private readonly dataSource: DataSource,
    private readonly outbox: Outbox<EntityManager>,
    @InjectConfig() private readonly config: ExactlyOnceConfig,
  ) {}

  /**
   * Inserts the order and its `order.placed` outbox row in one transaction: both commit, or neither does. No
   * message is sent here: the relay publishes the row once the transaction has committed.
   *
   * @throws UnprocessableEntityException above {@link MAX_ORDER_AMOUNT}; nothing is kept
   */
  async place(item: string, amount: number): Promise<PlacedOrder> {
    const event: OrderPlaced = { orderId: randomUUID(), item, amount };
    const messageId = await this.dataSource.transaction(async (manager) => {
      await manager.insert(Order, { id: event.orderId, item, amount });
      const id = await this.outbox.add(manager, ORDER_PLACED, event, {
        id: orderPlacedMessageId(event.orderId),
        aggregateType: 'order',
        aggregateId: event.orderId,
      });
      // Checked after both writes on purpose: the refusal shows the order and its event rolling back together.
      if (amount > MAX_ORDER_AMOUNT) {
        throw new UnprocessableEntityException(`Orders above ${MAX_ORDER_AMOUNT} need an approval this example does not have`);
      }
      return id;
    });
    this.logger.log(`Order ${event.orderId} placed: ${item} for ${amount.toFixed(2)} (${ORDER_PLACED} ${messageId} in the outbox)`);
    return { ...event, messageId };
  }

  async find(orderId: string): Promise<OrderView> {
    const order = await this.dataSource.manager.findOneBy(Order, { id: orderId });
    if (order === null) throw new NotFoundException(`No order ${orderId}`);
    const rows: Array<{ message_id: string; status: OutboxStatus; broker_offset: string | null; published_at: Date | null }> =
      await this.dataSource.query(
        `SELECT message_id, status, broker_offset, published_at FROM "${this.config.schema}".${OUTBOX_TABLE} WHERE message_id = $1`,
        [orderPlacedMessageId(orderId)],
      );
    const row = rows[0];
    return {
      order,
      event:
        row === undefined
          ? null
          : {
              messageId: row.message_id,
              status: row.status,
              brokerOffset: row.broker_offset === null ? null : Number(row.broker_offset),
              publishedAt: row.published_at,
            },
    };
  }
}
