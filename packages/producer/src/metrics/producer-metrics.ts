import { Inject, Injectable } from '@nestjs/common';
import { Counter, Histogram, Registry } from 'prom-client';
import type { ProduceObserver, ProduceOutcome, RequestOutcome } from '../produce-observer';
import { MMMQ_PRODUCER_METRICS_REGISTRY } from './mmmq-producer-metrics.options';

/**
 * Produce latencies from 0.5 ms (a nonPersistent ACK on loopback) to a minute (retries with backoff against a broker
 * that is down).
 */
export const PRODUCE_DURATION_BUCKETS_SECONDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 30, 60];

/** The producer's metrics, in the application's registry, measured once per publication and once per retry. */
@Injectable()
export class ProducerMetrics implements ProduceObserver {
  private readonly duration: Histogram<'topic' | 'outcome'>;
  private readonly retries: Counter<'topic'>;
  private readonly requests: Histogram<'topic' | 'outcome'>;
  private readonly lateReplies: Counter;

  constructor(@Inject(MMMQ_PRODUCER_METRICS_REGISTRY) registry: Registry) {
    this.duration = new Histogram({
      name: 'mmmq_producer_produce_duration_seconds',
      help: 'Seconds from the first attempt to publish a message (or batch) to its outcome (acked or failed), retries included, per topic',
      labelNames: ['topic', 'outcome'],
      buckets: PRODUCE_DURATION_BUCKETS_SECONDS,
      registers: [registry],
    });
    this.retries = new Counter({
      name: 'mmmq_producer_retries_total',
      help: 'Attempts to publish sent again after a transient failure, per topic',
      labelNames: ['topic'],
      registers: [registry],
    });
    this.requests = new Histogram({
      name: 'mmmq_producer_request_duration_seconds',
      help: 'Seconds from a request() call to its outcome (answered, error, timeout, cancelled or unavailable), per topic',
      labelNames: ['topic', 'outcome'],
      buckets: PRODUCE_DURATION_BUCKETS_SECONDS,
      registers: [registry],
    });
    this.lateReplies = new Counter({
      name: 'mmmq_producer_late_replies_total',
      help: 'Replies dropped because no request waited for them any more (timed out, cancelled, or answered already)',
      registers: [registry],
    });
  }

  requested(topic: string, outcome: RequestOutcome, seconds: number): void {
    this.requests.observe({ topic, outcome }, seconds);
  }

  lateReply(): void {
    this.lateReplies.inc();
  }

  produced(topics: readonly string[], outcome: ProduceOutcome, seconds: number): void {
    for (const topic of topics) this.duration.observe({ topic, outcome }, seconds);
  }

  retried(topics: readonly string[]): void {
    for (const topic of topics) this.retries.inc({ topic });
  }
}
