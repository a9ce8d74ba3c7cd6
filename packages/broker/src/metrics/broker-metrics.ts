import { Injectable, OnModuleDestroy } from '@nestjs/common';
import type { Registry } from 'prom-client';
import { SubscriptionContainer } from '../dispatch/subscription-container';
import { TopicQueueContainer } from '../storage/topic-queue-container';
import { TopicRegistry } from '../topics/topic-registry';
import { MeasuredMetrics } from './measured-metrics';
import { registerStorageCollectors } from './storage.collectors';
import { registerLagAge } from './subscription-lag-age';
import { registerSubscriptionCollectors } from './subscription.collectors';
import { registerTopicCollectors } from './topic.collectors';

/**
 * The broker's metrics: the {@link MeasuredMetrics} plus everything read from the broker's state when scraped
 * (topics, subscriptions, the journal), so the hot paths stay untouched. {@link registry} is what `GET /metrics`
 * serves.
 */
@Injectable()
export class BrokerMetrics implements OnModuleDestroy {
  readonly registry: Registry;

  constructor(
    private readonly measured: MeasuredMetrics,
    private readonly queues: TopicQueueContainer,
    topics: TopicRegistry,
    subscriptions: SubscriptionContainer,
  ) {
    this.registry = measured.registry;
    registerTopicCollectors(this.registry, topics);
    registerSubscriptionCollectors(this.registry, subscriptions);
    registerLagAge(this.registry, subscriptions, queues);
    registerStorageCollectors(this.registry, queues);
    queues.journal.stats.observer = measured;
  }

  onModuleDestroy(): void {
    if (this.queues.journal.stats.observer === this.measured) this.queues.journal.stats.observer = undefined;
  }
}
