/** Injection token of the prom-client registry the consumer's metrics go to (kept apart so it loads no prom-client). */
export const MMMQ_CONSUMER_METRICS_REGISTRY = Symbol('MMMQ_CONSUMER_METRICS_REGISTRY');
