import { Column, Entity, PrimaryColumn } from 'typeorm';
import { DECIMAL_AS_NUMBER } from '../database/decimal.transformer';

/** An order of the order service: the business row the outbox row is written beside. */
@Entity({ name: 'orders' })
export class Order {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ type: 'text' })
  item!: string;

  @Column({ type: 'numeric', precision: 12, scale: 2, transformer: DECIMAL_AS_NUMBER })
  amount!: number;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;
}
