import { IsInt, IsString, Min } from 'class-validator';

/** A typed payload with class-validator rules, as a user of Nest's microservices declares one. */
export class OrderPlaced {
  @IsString()
  orderId!: string;

  @IsInt()
  @Min(1)
  quantity!: number;

  get summary(): string {
    return `${this.quantity} × ${this.orderId}`;
  }
}
