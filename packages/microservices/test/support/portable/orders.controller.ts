import { Controller } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { HandledOrders } from './handled-orders.service';
import { OrderCreatedDto } from './order-created.dto';

/**
 * An ordinary Nest microservice controller, as a user writes it: only @nestjs/common and @nestjs/microservices, no
 * transport-specific context, so the same file runs on any transport the application is started with.
 */
@Controller()
export class OrdersController {
  constructor(private readonly handled: HandledOrders) {}

  @EventPattern('order.created')
  created(@Payload() order: OrderCreatedDto): void {
    this.handled.record(order);
  }
}
