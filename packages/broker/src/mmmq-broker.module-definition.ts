import { ConfigurableModuleBuilder } from '@nestjs/common';
import { withHealth } from './health/with-health';
import type { HealthOptions } from './health/health.options';
import type { MetricsOptions } from './metrics/metrics.options';
import { withMetrics } from './metrics/with-metrics';
import type { MmmqBrokerOptions } from './mmmq-broker.options';

/**
 * Options that shape the module itself, so they sit beside the (possibly async) broker options. Each needs a
 * default here: only the keys listed are taken out of the options the broker validates.
 */
interface MmmqBrokerModuleExtras {
  /**
   * Kept for applications written before the module was always global; it changes nothing. The broker is one per
   * application and its exports — `Dispatcher`, `TopicRegistry`, and the in-process transport that
   * `MmmqConsumerModule` and `MmmqProducerModule` use in its application — are injectable everywhere.
   */
  isGlobal: boolean;
  /** The `/health/live` and `/health/ready` probes (docs/operations.md#health). Default on at `health`. */
  health: HealthOptions;
  /** `GET /metrics` in the Prometheus text format (docs/operations.md#metrics). Default on at `metrics`. */
  metrics: MetricsOptions;
}

export const {
  ConfigurableModuleClass: ConfigurableMmmqBrokerModule,
  MODULE_OPTIONS_TOKEN: MMMQ_BROKER_OPTIONS,
  OPTIONS_TYPE: MMMQ_BROKER_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: MMMQ_BROKER_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<MmmqBrokerOptions>({ moduleName: 'MmmqBroker' })
  .setClassMethodName('forRoot')
  .setFactoryMethodName('createMmmqBrokerOptions')
  .setExtras<MmmqBrokerModuleExtras>({ isGlobal: false, health: {}, metrics: {} }, (definition, extras) =>
    withMetrics(withHealth({ ...definition, global: true }, extras.health), extras.metrics),
  )
  .build();
