import { Type } from 'class-transformer';
import { IsInt, IsString, Min, ValidateNested } from 'class-validator';

export class Customer {
  @IsString()
  name!: string;
}

/** A typed payload with class-validator rules, as a user would declare one. */
export class OrderCreated {
  @IsString()
  orderId!: string;

  @IsInt()
  @Min(1)
  quantity!: number;

  @ValidateNested()
  @Type(() => Customer)
  customer!: Customer;

  get summary(): string {
    return `${this.quantity} × ${this.orderId} for ${this.customer.name}`;
  }
}

export const validOrder = (orderId = 'o-1') => ({ orderId, quantity: 2, customer: { name: 'Ada' } });
