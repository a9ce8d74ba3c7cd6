// `@mmmq/producer/metrics`: the only entry point that loads prom-client (an optional peer dependency).
export { MmmqProducerMetricsModule } from './mmmq-producer-metrics.module';
export { type MmmqProducerMetricsOptions } from './mmmq-producer-metrics.options';
export { ProducerMetrics, PRODUCE_DURATION_BUCKETS_SECONDS } from './producer-metrics';
