import { Type } from 'class-transformer';
import { IsNotEmpty, IsPositive, IsString } from 'class-validator';

/** Published on `order.created` when an order is placed. */
export class OrderCreated {
  @IsString()
  @IsNotEmpty()
  orderId!: string;

  @IsString()
  @IsNotEmpty()
  item!: string;

  @Type(() => Number)
  @IsPositive()
  amount!: number;
}

/** Published on `order.cancelled`. */
export class OrderCancelled {
  @IsString()
  @IsNotEmpty()
  orderId!: string;

  @IsString()
  reason!: string;
}

/** Topic → content of every event the order service publishes; types both the producer and the listeners. */
export interface OrderEvents {
  'order.created': OrderCreated;
  'order.cancelled': OrderCancelled;
}
