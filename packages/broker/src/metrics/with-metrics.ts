import type { DynamicModule } from '@nestjs/common';
import { DELIVERY_OBSERVER } from '../dispatch/delivery-observer';
import { PUBLISH_OBSERVER } from '../publish/publish-observer';
import { JOURNAL_OBSERVER } from '../storage/journal/journal-ports';
import { BrokerMetrics } from './broker-metrics';
import { MeasuredMetrics } from './measured-metrics';
import { metricsController } from './metrics.controller';
import { MMMQ_METRICS_OPTIONS, resolveMetricsOptions } from './metrics.options';

/**
 * Adds the metrics endpoint and its measurements to the broker module unless `metrics.enabled` is false; then
 * nothing is measured at all (the publish path and the journal find no observer). {@link BrokerMetrics} is exported,
 * so a host application can serve its registry itself.
 *
 * @throws InvalidBrokerOptionsError naming the `metrics` option that is wrong
 */
export function withMetrics(definition: DynamicModule, metrics: unknown): DynamicModule {
  const resolved = resolveMetricsOptions(metrics);
  if (!resolved.enabled) return definition;
  return {
    ...definition,
    controllers: [...(definition.controllers ?? []), metricsController(resolved.path)],
    providers: [
      ...(definition.providers ?? []),
      { provide: MMMQ_METRICS_OPTIONS, useValue: resolved },
      MeasuredMetrics,
      BrokerMetrics,
      { provide: PUBLISH_OBSERVER, useExisting: MeasuredMetrics },
      { provide: DELIVERY_OBSERVER, useExisting: MeasuredMetrics },
      { provide: JOURNAL_OBSERVER, useExisting: MeasuredMetrics },
    ],
    exports: [...(definition.exports ?? []), BrokerMetrics],
  };
}
