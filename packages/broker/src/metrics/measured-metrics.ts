import { Inject, Injectable, Optional } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import type { DeliveryObserver } from '../dispatch/delivery-observer';
import type { PublishedPart, PublishObserver } from '../publish/publish-observer';
import type { JournalObserver } from '../storage/journal/journal-ports';
import { DEFAULT_MAX_SUBSCRIPTION_SERIES, DEFAULT_MAX_TOPIC_SERIES, EnabledMetricsOptions, MMMQ_METRICS_OPTIONS } from './metrics.options';
import { replaceOpenDescriptorsCollector } from './open-descriptors.collector';
import { OTHER_SERIES, SeriesSelection, subscriptionKey } from './series-selection';

/**
 * Latency buckets in seconds, from a group commit on a fast SSD (~1 ms) to a stalled disk (10 s): Prometheus's
 * default buckets start at 5 ms and would put every fsync of a local SSD into the first one.
 */
export const LATENCY_BUCKETS_SECONDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10];

/** Commit requests per journal record: powers of two up to a few hundred concurrent publishers. */
export const GROUP_COMMIT_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];

/**
 * The broker's registry, of its own (not prom-client's global one: two brokers in one process keep theirs apart),
 * with what is measured where things happen: publish commits (the {@link PublishIntake}, once per commit), journal
 * records (once per record) and pushes (once per answer, once per backoff). It depends on nothing, so the parts it
 * observes can inject it; {@link BrokerMetrics} adds what is read from the broker's state at scrape time. Its
 * per-topic and per-subscription series are capped by {@link topicSeries} and {@link subscriptionSeries}: what the
 * others measure goes to the `__other` series.
 */
@Injectable()
export class MeasuredMetrics implements PublishObserver, JournalObserver, DeliveryObserver {
  readonly registry = new Registry();
  /** Which topics have series of their own (`metrics.maxTopicSeries`); shared with the scrape-time series. */
  readonly topicSeries: SeriesSelection;
  /** Which subscriptions have series of their own (`metrics.maxSubscriptionSeries`). */
  readonly subscriptionSeries: SeriesSelection;
  /** Push members backing off, per subscription key: read at scrape time, capped like the other gauges. */
  readonly backingOffMembers = new Map<string, number>();
  private readonly publishLatency: Histogram<'topic'>;
  private readonly groupCommits: Histogram;
  private readonly fsyncLatency: Histogram;
  private readonly deliveryLatency: Histogram<'topic' | 'consumer_id'>;
  private readonly messagesPublished: Counter<'topic'>;
  private readonly bytesPublished: Counter<'topic'>;

  constructor(@Optional() @Inject(MMMQ_METRICS_OPTIONS) options?: EnabledMetricsOptions) {
    this.topicSeries = new SeriesSelection(options?.maxTopicSeries ?? DEFAULT_MAX_TOPIC_SERIES);
    this.subscriptionSeries = new SeriesSelection(options?.maxSubscriptionSeries ?? DEFAULT_MAX_SUBSCRIPTION_SERIES);
    collectDefaultMetrics({ register: this.registry });
    replaceOpenDescriptorsCollector(this.registry);
    const registers = [this.registry];
    this.messagesPublished = new Counter({
      name: 'mmmq_topic_messages_published_total',
      help: 'Messages published to the topic and committed since the broker started',
      labelNames: ['topic'],
      registers,
    });
    this.bytesPublished = new Counter({
      name: 'mmmq_topic_published_bytes_total',
      help: 'Bytes of the messages published to the topic since the broker started, as stored (envelope included)',
      labelNames: ['topic'],
      registers,
    });
    this.publishLatency = new Histogram({
      name: 'mmmq_topic_publish_latency_seconds',
      help: 'Seconds from a publish reaching the broker to its commit (durable when persistent), per topic',
      labelNames: ['topic'],
      buckets: LATENCY_BUCKETS_SECONDS,
      registers,
    });
    this.groupCommits = new Histogram({
      name: 'mmmq_journal_group_commit_size',
      help: 'Commit requests (publishes, batches, settlements) written together in one journal record',
      buckets: GROUP_COMMIT_BUCKETS,
      registers,
    });
    this.fsyncLatency = new Histogram({
      name: 'mmmq_journal_fsync_seconds',
      help: 'Seconds one journal record took to fsync',
      buckets: LATENCY_BUCKETS_SECONDS,
      registers,
    });
    this.deliveryLatency = new Histogram({
      name: 'mmmq_subscription_delivery_latency_seconds',
      help: 'Seconds from sending a push (one message or a batch) to the consumer answering it',
      labelNames: ['topic', 'consumer_id'],
      buckets: LATENCY_BUCKETS_SECONDS,
      registers,
    });
  }

  committed(parts: readonly PublishedPart[], seconds: number): void {
    for (const part of parts) {
      const { messages, bytes } = part;
      const topic = this.topicSeries.admit(part.topic) ? part.topic : OTHER_SERIES;
      this.messagesPublished.inc({ topic }, messages);
      this.bytesPublished.inc({ topic }, bytes);
      this.publishLatency.observe({ topic }, seconds);
    }
  }

  recordWritten(commits: number, _bytes: number, fsyncSeconds: number): void {
    this.groupCommits.observe(commits);
    this.fsyncLatency.observe(fsyncSeconds);
  }

  pushAnswered(topic: string, consumerId: string, seconds: number): void {
    const own = this.subscriptionSeries.admit(subscriptionKey(topic, consumerId));
    this.deliveryLatency.observe(own ? { topic, consumer_id: consumerId } : { topic: OTHER_SERIES, consumer_id: OTHER_SERIES }, seconds);
  }

  backingOff(topic: string, consumerId: string, change: 1 | -1): void {
    const key = subscriptionKey(topic, consumerId);
    const members = (this.backingOffMembers.get(key) ?? 0) + change;
    // A subscription with a series keeps it at 0 (as a gauge does); the others are forgotten, or the map would grow.
    if (members === 0 && !this.subscriptionSeries.has(key)) this.backingOffMembers.delete(key);
    else this.backingOffMembers.set(key, members);
  }

  /** Removes the measured series of a topic that lost its own (it was deleted). */
  forgetTopic(topic: string): void {
    for (const metric of [this.messagesPublished, this.bytesPublished, this.publishLatency]) metric.remove({ topic });
  }

  /** Removes the measured series of a subscription that lost its own (it was deleted). */
  forgetSubscription(key: string): void {
    const [topic, consumerId] = key.split('\0');
    this.deliveryLatency.remove({ topic, consumer_id: consumerId });
    this.backingOffMembers.delete(key);
  }
}
