import { IsInt, IsString, Min } from 'class-validator';

/** The event's payload as a user declares it for Nest's ValidationPipe: nothing in it names a transport. */
export class OrderCreatedDto {
  @IsString()
  orderId!: string;

  @IsInt()
  @Min(1)
  quantity!: number;

  /** A method only a real instance has, so a test can tell the transformed DTO from the plain JSON. */
  get summary(): string {
    return `${this.quantity} × ${this.orderId}`;
  }
}
