import { Body, Controller, Get, Param, ParseUUIDPipe, Post, ValidationPipe } from '@nestjs/common';
import { PlaceOrderDto } from './place-order.dto';
import { OrdersService, OrderView, PlacedOrder } from './orders.service';

@Controller('orders')
export class OrdersController {
  constructor(private readonly orders: OrdersService) {}

  @Post()
  place(@Body(new ValidationPipe({ whitelist: true, forbidNonWhitelisted: true })) body: PlaceOrderDto): Promise<PlacedOrder> {
    return this.orders.place(body.item, body.amount);
  }

  @Get(':orderId')
  find(@Param('orderId', ParseUUIDPipe) orderId: string): Promise<OrderView> {
    return this.orders.find(orderId);
  }
}
