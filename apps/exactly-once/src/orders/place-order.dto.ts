import { IsNotEmpty, IsNumber, IsPositive, IsString, MaxLength } from 'class-validator';

/** Body of `POST /orders`; an invalid one is answered 400 before any transaction starts. */
export class PlaceOrderDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  item!: string;

  @IsNumber({ maxDecimalPlaces: 2 })
  @IsPositive()
  amount!: number;
}
