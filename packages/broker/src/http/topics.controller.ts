import { Topic } from '@mmmq/core';
import { Controller, Get, Param, Query, UseFilters, UseGuards } from '@nestjs/common';
import { BrokerAccessGuard } from './broker-access.guard';
import { RequiresRole } from '../security/requires-role.decorator';
import { TopicQueueContainer } from '../storage/topic-queue-container';
import { browseTopic, MessagePage, pageRange } from '../topics/topic-browser';
import { TopicInfo, TopicRegistry } from '../overview/topic-registry';
import { TopicNotFoundError } from '../topics/topic.errors';
import { NackExceptionFilter } from './nack-exception.filter';

/** The topics: what exists, how far each reaches, who reads it, and its messages by offset (read-only). */
@Controller('mmmq/topics')
@UseFilters(NackExceptionFilter)
@UseGuards(BrokerAccessGuard)
@RequiresRole('admin')
export class TopicsController {
  constructor(
    private readonly registry: TopicRegistry,
    private readonly queues: TopicQueueContainer,
  ) {}

  @Get()
  list(): { topics: TopicInfo[] } {
    return { topics: this.registry.list() };
  }

  @Get(':topic')
  get(@Param('topic') topic: string): TopicInfo {
    const info = this.registry.get(Topic.of(topic).name);
    if (!info) throw new TopicNotFoundError(topic);
    return info;
  }

  /** `?from=` (default: the oldest retained offset) and `?limit=` (default 100, at most 1000). */
  @Get(':topic/messages')
  messages(@Param('topic') topic: string, @Query('from') from?: string, @Query('limit') limit?: string): Promise<MessagePage> {
    const range = pageRange(from, limit);
    const queue = this.queues.get(Topic.of(topic).name);
    if (!queue) throw new TopicNotFoundError(topic);
    return browseTopic(queue, range.from, range.limit);
  }
}
