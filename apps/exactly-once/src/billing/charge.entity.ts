import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { DECIMAL_AS_NUMBER } from '../database/decimal.transformer';

/**
 * One charge per processed `order.placed` message. Deliberately no unique constraint on `order_id`: what keeps a
 * redelivered message from charging twice is the inbox, not this table.
 */
@Entity({ name: 'charges' })
export class Charge {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ name: 'order_id', type: 'uuid' })
  orderId!: string;

  @Column({ type: 'numeric', precision: 12, scale: 2, transformer: DECIMAL_AS_NUMBER })
  amount!: number;

  /** The message that caused it: the outbox row's `message_id`, relayed as the message id. */
  @Column({ name: 'message_id', type: 'text' })
  messageId!: string;

  /** The delivery that charged (1 unless an earlier attempt failed and rolled back). */
  @Column({ name: 'delivery_count', type: 'integer' })
  deliveryCount!: number;

  @Column({ name: 'charged_at', type: 'timestamptz', default: () => 'now()' })
  chargedAt!: Date;
}
