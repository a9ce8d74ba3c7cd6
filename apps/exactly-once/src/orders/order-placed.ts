import { Type } from 'class-transformer';
import { IsNotEmpty, IsPositive, IsString, IsUUID } from 'class-validator';

/** The topic of {@link OrderPlaced}. */
export const ORDER_PLACED = 'order.placed';

/** Content of `order.placed`, written to the outbox with its order; billing's listener converts and validates it. */
export class OrderPlaced {
  @IsUUID()
  orderId!: string;

  @IsString()
  @IsNotEmpty()
  item!: string;

  @Type(() => Number)
  @IsPositive()
  amount!: number;
}

/** The outbox message id of an order's `order.placed`: one event per order, whoever writes it. */
export function orderPlacedMessageId(orderId: string): string {
  return `order-placed-${orderId}`;
}
