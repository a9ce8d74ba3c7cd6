import { Inject, Injectable } from '@nestjs/common';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ConsumerObserver, HandlerOutcome } from '../handling/consumer-observer';
import type { TransportHealth } from '../transport/transport-status';
import { MMMQ_CONSUMER_METRICS_REGISTRY } from './mmmq-consumer-metrics.options';

/**
 * Handler durations from 1 ms to a minute: handlers range from an in-memory update to a slow remote call, and the
 * broker's default ackTimeout (30 s) sits inside the range.
 */
export const HANDLER_DURATION_BUCKETS_SECONDS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** The consumer's metrics, in the application's registry: measured per handler run, the queue read when scraped. */
@Injectable()
export class ConsumerMetrics implements ConsumerObserver {
  private readonly duration: Histogram<'consumer_id' | 'topic' | 'outcome'>;
  private readonly duplicates: Counter<'consumer_id' | 'topic'>;
  private load: () => { running: number; waiting: number } = () => ({ running: 0, waiting: 0 });
  private transport: () => TransportHealth | undefined = () => undefined;

  constructor(@Inject(MMMQ_CONSUMER_METRICS_REGISTRY) registry: Registry) {
    const registers = [registry];
    this.duration = new Histogram({
      name: 'mmmq_consumer_handler_duration_seconds',
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
