import { DynamicModule, Global, Module } from '@nestjs/common';
import { register } from 'prom-client';
import { CONSUMER_OBSERVER } from '../handling/consumer-observer';
import { ConsumerMetrics } from './consumer-metrics';
import {
  MMMQ_CONSUMER_METRICS_REGISTRY,
  MmmqConsumerMetricsOptions,
  resolveConsumerMetricsRegistry,
} from './mmmq-consumer-metrics.options';

/**
 * The consumer's metrics (docs/operations.md#metrics) in the application's prom-client registry:
 * `MmmqConsumerMetricsModule.forRoot({ registry })` beside `MmmqConsumerModule`. Global, so the consumer module finds
 * it; without it the consumer measures nothing and never loads prom-client.
 */
@Global()
@Module({})
export class MmmqConsumerMetricsModule {
  /** @throws InvalidConsumerOptionsError naming the option that is wrong */
  static forRoot(options: MmmqConsumerMetricsOptions = {}): DynamicModule {
    const registry = resolveConsumerMetricsRegistry(options, register);
    return {
      module: MmmqConsumerMetricsModule,
      providers: [
        { provide: MMMQ_CONSUMER_METRICS_REGISTRY, useValue: registry },
        ConsumerMetrics,
        { provide: CONSUMER_OBSERVER, useExisting: ConsumerMetrics },
      ],
      exports: [CONSUMER_OBSERVER, ConsumerMetrics],
    };
  }
}
