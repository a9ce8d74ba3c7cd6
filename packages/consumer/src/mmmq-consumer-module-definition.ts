import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { AsyncApiRouteOptions } from '@mmmq/core';
import type { HealthEndpointOptions } from './health/health-endpoint.options';
import { withEndpoints } from './runtime/with-endpoints';
import type { MetricsEndpointOptions } from './metrics/metrics-endpoint.options';
import type { MmmqConsumerOptions } from './config/mmmq-consumer.options';

/**
 * Options that shape the module itself, so they sit beside the (possibly async) consumer options: the routes exist
 * or not when the module is built, before any factory runs. Each needs a default here: only the keys listed are
 * taken out of the options the consumer validates.
 */
interface MmmqConsumerModuleExtras {
  /** Makes the options (`MMMQ_CONSUMER_OPTIONS`) injectable everywhere. Default false. */
  isGlobal: boolean;
  /**
   * `GET /health/live` and `GET /health/ready` reflecting the listeners (docs/consumer.md#health-and-metrics-endpoints);
   * needs `@nestjs/terminus`. `true` or `{ path, maxHandlerMs, maxQueueFullMs }`. Default off.
   */
  health: boolean | HealthEndpointOptions;
  /**
   * `GET /metrics` with the handlers' durations and outcomes (docs/consumer.md#health-and-metrics-endpoints); needs
   * prom-client. `true` or `{ path, registry }`. Default off.
   */
  metrics: boolean | MetricsEndpointOptions;
  /**
   * `GET /asyncapi.json`: the application's AsyncAPI 3.0 document (docs/asyncapi.md). `true` or
   * `{ path, title, version, description }`. Default off.
   */
  asyncapi: boolean | AsyncApiRouteOptions;
}

export const {
  ConfigurableModuleClass: MmmqConsumerConfigurableModule,
  MODULE_OPTIONS_TOKEN: MMMQ_CONSUMER_OPTIONS,
  OPTIONS_TYPE: MMMQ_CONSUMER_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: MMMQ_CONSUMER_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<MmmqConsumerOptions>({ moduleName: 'MmmqConsumer' })
  .setClassMethodName('forRoot')
  .setExtras<MmmqConsumerModuleExtras>({ isGlobal: false, health: false, metrics: false, asyncapi: false }, (definition, extras) =>
    withEndpoints({ ...definition, global: extras.isGlobal }, extras.health, extras.metrics, extras.asyncapi),
  )
  .build();
