import { Module } from '@nestjs/common';
import { OrdersController } from './orders.controller';
import { OrdersService } from './orders.service';

/** The order service: `POST /orders` writes an order and its `order.placed` event in one transaction. */
@Module({ controllers: [OrdersController], providers: [OrdersService] })
export class OrdersModule {}
