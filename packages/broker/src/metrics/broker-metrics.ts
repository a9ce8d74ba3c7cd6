import { Injectable, Optional } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import type { Registry } from 'prom-client';
import { Deduplicator } from '../deduplication/deduplicator';
import { DispatcherRegistry } from '../dispatch/dispatcher-registry';
import type { Subscription } from '../dispatch/subscription';
import { SubscriptionContainer } from '../dispatch/subscription-container';
import type { TopicQueue } from '../storage/topic-queue';
import { TopicQueueContainer } from '../storage/topic-queue-container';
import { registerBackoffCollector } from './backoff.collector';
import { CappedSeries } from './capped-series';
import { registerCappedCollectors } from './capped.collectors';
import { expositionChunks, LineWriter } from './incremental-exposition';
import { MeasuredMetrics } from './measured-metrics';
import { registerStorageCollectors } from './storage.collectors';
import { SubscriptionLagAge } from './subscription-lag-age';
import { OTHER_SUBSCRIPTION_LABELS, SUBSCRIPTION_FAMILY } from './subscription.collectors';
import { OTHER_TOPIC_LABELS, topicFamily } from './topic.collectors';
import { TurnBudget } from './turn-budget';

/**
 * How long the values of a walk serve a `registry.metrics()` of a host application before the next one walks again:
 * the walks of one scrape's collectors share one.
 */
export const WALK_REUSE_MS = 1_000;

/**
 * The broker's metrics: the {@link MeasuredMetrics} plus everything read from the broker's state when scraped
 * (topics, subscriptions, the journal), so the hot paths stay untouched. {@link scrape} is what `GET /metrics`
 * serves: a walk over the topics and subscriptions, then the text, both in turns of a few milliseconds. Per-topic and
 * per-subscription series are capped (`metrics.maxTopicSeries`, `metrics.maxSubscriptionSeries`), the rest summed
 * under `__other`.
 */
@Injectable()
export class BrokerMetrics {
  readonly registry: Registry;
  private readonly topics: CappedSeries<TopicQueue>;
  private readonly subscriptions: CappedSeries<Subscription>;
  private readonly lagAge: SubscriptionLagAge;
  /** The capped families' metrics, written in turns by {@link scrape} rather than through their collects. */
  private readonly writers: ReadonlyMap<string, LineWriter>;
  private walking?: Promise<void>;
  private walkedAt = -Infinity;

  constructor(
    measured: MeasuredMetrics,
    private readonly queues: TopicQueueContainer,
    private readonly subscriptionContainer: SubscriptionContainer,
    private readonly dispatchers: DispatcherRegistry,
    @Optional() deduplicator?: Deduplicator,
  ) {
    this.registry = measured.registry;
    this.topics = new CappedSeries(topicFamily(deduplicator), measured.topicSeries, (topic) => measured.forgetTopic(topic));
    this.subscriptions = new CappedSeries(SUBSCRIPTION_FAMILY, measured.subscriptionSeries, (key) => measured.forgetSubscription(key));
    const walked = () => this.walked();
    const writers = new Map([
      ...registerCappedCollectors(this.registry, this.topics, OTHER_TOPIC_LABELS, walked),
      ...registerCappedCollectors(this.registry, this.subscriptions, OTHER_SUBSCRIPTION_LABELS, walked),
    ]);
    this.lagAge = new SubscriptionLagAge(this.registry, this.subscriptions, walked);
    this.writers = writers.set(...this.lagAge.writer);

    registerBackoffCollector(this.registry, measured);
    registerStorageCollectors(this.registry, queues);
  }

  /** The registry in the Prometheus text format, as `GET /metrics` serves it, without holding the event loop for long. */
  async scrape(): Promise<string> {
    return Buffer.concat(await this.scrapeChunks()).toString('utf8');
  }

  /** {@link scrape}'s text in encoded chunks of about 64 KiB, as `GET /metrics` writes them: never one ~3 MB string. */
  async scrapeChunks(): Promise<Buffer[]> {
    const budget = new TurnBudget();
    await this.walk(budget);
    return expositionChunks(this.registry, budget, this.writers);
  }

  /** Walks the topics and subscriptions (one walk at a time: concurrent scrapes share it). */
  walk(budget = new TurnBudget()): Promise<void> {
    this.walking ??= this.walkAll(budget).finally(() => {
      this.walking = undefined;
      this.walkedAt = performance.now();
    });
    return this.walking;
  }

  /** Resolves once a recent walk's values are there (a scrape has just walked; a bare `registry.metrics()` has not). */
  private async walked(): Promise<void> {
    if (this.walking) await this.walking;
    else if (performance.now() - this.walkedAt > WALK_REUSE_MS) await this.walk();
  }

  private async walkAll(budget: TurnBudget): Promise<void> {
    await this.topics.refresh(() => this.queues.each(), budget);
    await this.subscriptions.refresh(() => this.eachSubscription(), budget);
    await this.lagAge.refresh(this.subscriptions, budget);
  }

  /** Every subscription of every dispatcher, from the live collections (no copy of them). */
  private *eachSubscription(): Generator<Subscription> {
    for (const { consumerId } of this.dispatchers.list()) yield* this.subscriptionContainer.eachSubscriptionOf(consumerId);
  }
}
