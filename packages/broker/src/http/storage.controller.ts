import { Controller, Get, UseFilters, UseGuards } from '@nestjs/common';
import { BrokerAccessGuard } from './broker-access.guard';
import { RequiresRole } from '../security/requires-role.decorator';
import { StorageView, TopicQueueContainer } from '../storage';
import { NackExceptionFilter } from './nack-exception.filter';

/** The journal's state and what the storage layer did since start (commits, flushes, fsyncs). */
@Controller('mmmq/storage')
@UseFilters(NackExceptionFilter)
@UseGuards(BrokerAccessGuard)
@RequiresRole('admin')
export class StorageController {
  constructor(private readonly queues: TopicQueueContainer) {}

  @Get()
  view(): Promise<StorageView> {
    return this.queues.view();
  }
}
