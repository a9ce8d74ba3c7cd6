// `@mmmq/consumer/metrics`: the only entry point that loads prom-client (an optional peer dependency).
export { MmmqConsumerMetricsModule } from './mmmq-consumer-metrics.module';
export { type MmmqConsumerMetricsOptions } from './mmmq-consumer-metrics.options';
export { ConsumerMetrics, HANDLER_DURATION_BUCKETS_SECONDS } from './consumer-metrics';
