import { DynamicModule, Global, Module } from '@nestjs/common';
import { register } from 'prom-client';
import { PRODUCE_OBSERVER } from '../produce-observer';
import {
  MMMQ_PRODUCER_METRICS_REGISTRY,
  MmmqProducerMetricsOptions,
  resolveProducerMetricsRegistry,
} from './mmmq-producer-metrics.options';
import { ProducerMetrics } from './producer-metrics';

/**
 * The producer's metrics (docs/operations.md#metrics) in the application's prom-client registry:
 * `MmmqProducerMetricsModule.forRoot({ registry })` beside `MmmqProducerModule`. Global, so the producer module finds
 * it; without it the producer measures nothing and never loads prom-client.
 */
@Global()
@Module({})
export class MmmqProducerMetricsModule {
  /** @throws InvalidProducerOptionsError naming the option that is wrong */
  static forRoot(options: MmmqProducerMetricsOptions = {}): DynamicModule {
    const registry = resolveProducerMetricsRegistry(options, register);
    return {
      module: MmmqProducerMetricsModule,
      providers: [
        { provide: MMMQ_PRODUCER_METRICS_REGISTRY, useValue: registry },
        ProducerMetrics,
        { provide: PRODUCE_OBSERVER, useExisting: ProducerMetrics },
      ],
      exports: [PRODUCE_OBSERVER, ProducerMetrics],
    };
  }
}
