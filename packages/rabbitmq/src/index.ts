// @mmmq/rabbitmq: the RabbitMQ transport (docs/scaling.md).
export { RabbitMqTransport } from './rabbitmq-transport';
export {
  type RabbitMqTransportOptions,
  type RabbitMqRetryOptions,
  type ResolvedRabbitMqOptions,
  DEFAULT_EXCHANGE,
  DEFAULT_QUEUE_PREFIX,
  DEFAULT_PREFETCH,
  DEFAULT_MAX_DELIVERIES,
  DEFAULT_RETRY_DELAYS_MS,
  DEFAULT_DELIVERY_LIMIT,
  DEFAULT_CONFIRM_TIMEOUT_MS,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_RECONNECT_BACKOFF,
} from './rabbitmq-transport.options';
export { InternalHeaders } from './delivery-mapping';
export { listenerNames, retryQueueName, type ListenerNames } from './topology';
export { bindingKeyOf } from './pattern-binding';
export { InvalidRabbitMqOptionsError } from './errors/invalid-rabbitmq-options.error';
export { RabbitMqConnectionError } from './errors/rabbitmq-connection.error';
export { PublishNotConfirmedError } from './errors/publish-not-confirmed.error';
export { PublishAbandonedError } from './errors/publish-abandoned.error';
export { RabbitMqTransportClosedError } from './errors/transport-closed.error';
