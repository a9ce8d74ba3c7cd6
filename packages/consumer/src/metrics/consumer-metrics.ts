import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ConsumerObserver, HandlerOutcome } from '../handling/consumer-observer';
import type { TransportHealth } from '../handling/transport-health';
import { InvalidConsumerOptionsError } from '../errors/invalid-consumer-options.error';
import { MMMQ_CONSUMER_METRICS_REGISTRY } from './metrics-registry.token';

/**
 * Handler durations from 1 ms to a minute: handlers range from an in-memory update to a slow remote call, and the
 * broker's default ackTimeout (30 s) sits inside the range.
 */
export const HANDLER_DURATION_BUCKETS_SECONDS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** The histogram of handler runs; its `_count` series are the runs by outcome. */
export const HANDLER_DURATION_METRIC = 'mmmq_consumer_handler_duration_seconds';
/** Every metric of the consumer's is named with it. */
const CONSUMER_METRIC_PREFIX = 'mmmq_consumer_';

/** The consumer's metrics, in the application's registry: measured per handler run, the queue read when scraped. */
@Injectable()
export class ConsumerMetrics implements ConsumerObserver, OnModuleDestroy {
  private readonly duration: Histogram<'consumer_id' | 'topic' | 'outcome'>;
  private readonly duplicates: Counter<'consumer_id' | 'topic'>;
  private load: () => { running: number; waiting: number } = () => ({ running: 0, waiting: 0 });
  private transport: () => TransportHealth | undefined = () => undefined;

  /** @throws InvalidConsumerOptionsError when the registry holds a consumer's metrics already */
  constructor(@Inject(MMMQ_CONSUMER_METRICS_REGISTRY) private readonly registry: Registry) {
    // prom-client's own error would name a metric, not the cause.
    if (registry.getSingleMetric(HANDLER_DURATION_METRIC) !== undefined) {
      throw new InvalidConsumerOptionsError(
        `The registry holds the consumer's metrics already: either MmmqConsumerMetricsModule or the metrics option of ` +
          `MmmqConsumerModule, not both; several consumer applications in one process each need a registry of their own (metrics.registry)`,
      );
    }
    const registers = [registry];
    this.duration = new Histogram({
      name: HANDLER_DURATION_METRIC,
      help: 'Seconds a listener took on a message, by how it ended: ack, nack (retried) or reject (dead-lettered)',
      labelNames: ['consumer_id', 'topic', 'outcome'],
      buckets: HANDLER_DURATION_BUCKETS_SECONDS,
      registers,
    });
    this.duplicates = new Counter({
      name: 'mmmq_consumer_inbox_duplicates_total',
      help: 'Messages an inbox listener had processed already: acknowledged without running the handler',
      labelNames: ['consumer_id', 'topic'],
      registers,
    });
    const load = () => this.load();
    new Gauge({
      name: 'mmmq_consumer_queue_waiting_messages',
      help: 'Messages received and waiting for a worker (bounded by the consumer queueSize option)',
      registers,
      collect() {
        this.set(load().waiting);
      },
    });
    new Gauge({
      name: 'mmmq_consumer_handlers_running',
      help: 'Listener runs in progress',
      registers,
      collect() {
        this.set(load().running);
      },
    });
    const transport = () => this.transport();
    new Gauge({
      name: 'mmmq_consumer_transport_receiving',
      help: 'On a transport other than the MMMQ broker: 1 while its subscriber receives, 0 while it reconnects or has stopped',
      labelNames: ['transport'],
      registers,
      collect() {
        this.reset();
        const status = transport();
        if (status !== undefined) this.set({ transport: status.name }, status.receiving ? 1 : 0);
      },
    });
  }

  /** Frees the names, so an application started again in this process (tests, a restart in place) registers them anew. */
  onModuleDestroy(): void {
    for (const { name } of this.registry.getMetricsAsArray()) {
      if (name.startsWith(CONSUMER_METRIC_PREFIX)) this.registry.removeSingleMetric(name);
    }
  }

  handled(consumerId: string, topic: string, outcome: HandlerOutcome, seconds: number): void {
    this.duration.observe({ consumer_id: consumerId, topic, outcome }, seconds);
  }

  inboxDuplicate(consumerId: string, topic: string): void {
    this.duplicates.inc({ consumer_id: consumerId, topic });
  }

  watchQueue(load: () => { running: number; waiting: number }): void {
    this.load = load;
  }

  watchTransport(status: () => TransportHealth | undefined): void {
    this.transport = status;
  }
}
