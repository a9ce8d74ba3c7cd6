import { Controller, Get, UseFilters } from '@nestjs/common';
import { SubscriptionContainer, SubscriptionView } from '../dispatch/subscription-container';
import { NackExceptionFilter } from './nack-exception.filter';

/** Every (topic, consumer) pair with its position, lag and delivery counters. */
@Controller('mmmq/subscriptions')
@UseFilters(NackExceptionFilter)
export class SubscriptionsController {
  constructor(private readonly subscriptions: SubscriptionContainer) {}

  @Get()
  list(): SubscriptionView[] {
    return this.subscriptions.list();
  }
}
