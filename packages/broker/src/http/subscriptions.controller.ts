import { Controller, Get, UseFilters, UseGuards } from '@nestjs/common';
import { SubscriptionContainer, SubscriptionView } from '../dispatch/subscription-container';
import { BrokerAccessGuard } from './broker-access.guard';
import { RequiresRole } from '../security/requires-role.decorator';
import { NackExceptionFilter } from './nack-exception.filter';

/** Every (topic, consumer) pair with its position, lag and delivery counters. */
@Controller('mmmq/subscriptions')
@UseFilters(NackExceptionFilter)
@UseGuards(BrokerAccessGuard)
@RequiresRole('admin')
export class SubscriptionsController {
  constructor(private readonly subscriptions: SubscriptionContainer) {}

  @Get()
  list(): SubscriptionView[] {
    return this.subscriptions.list();
  }
}
