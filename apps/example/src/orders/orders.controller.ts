import { Body, Controller, Delete, HttpCode, Param, Post } from '@nestjs/common';
import { OrderCancelled, OrderCreated } from './order-events';
import { OrdersService } from './orders.service';

@Controller('orders')
export class OrdersController {
  constructor(private readonly orders: OrdersService) {}

  @Post()
  place(@Body() body: { item: string; amount: number }): Promise<OrderCreated> {
    return this.orders.place(body.item, Number(body.amount));
  }

  @Delete(':orderId')
  @HttpCode(200)
  cancel(@Param('orderId') orderId: string, @Body() body?: { reason?: string }): Promise<OrderCancelled> {
    return this.orders.cancel(orderId, body?.reason ?? 'cancelled by the customer');
  }
}
