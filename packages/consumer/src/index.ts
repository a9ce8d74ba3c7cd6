export { MmmqConsumerModule } from './mmmq-consumer.module';
export { MMMQ_CONSUMER_OPTIONS } from './mmmq-consumer-module-definition';
export {
  DEFAULT_DELIVERY_BATCH_SIZE,
  DEFAULT_DELIVERY_MAX_IN_FLIGHT,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_WORKERS,
  DEFAULT_MIN_WORKERS,
  DEFAULT_QUEUE_SIZE,
  DEFAULT_REGISTRATION_ATTEMPTS,
  DEFAULT_REGISTRATION_BACKOFF_MS,
  DEFAULT_REGISTRATION_FAIL_FAST,
  DEFAULT_REGISTRATION_LEAVE_ON_SHUTDOWN,
  DEFAULT_REGISTRATION_MAX_BACKOFF_MS,
  DEFAULT_REGISTRATION_TIMEOUT_MS,
  DEFAULT_SHUTDOWN_TIMEOUT_MS,
  MAX_DELIVERY_BATCH_SIZE,
  MAX_DELIVERY_MAX_IN_FLIGHT,
  DEFAULT_PULL_MAX_LEASE_EXTENSION_MS,
  DEFAULT_PULL_PREFETCH,
  MAX_PULL_PREFETCH,
  DEFAULT_PULL_WAIT_MS,
  MAX_PULL_WAIT_MS,
  MIN_PULL_ACK_TIMEOUT_MS,
  MAX_PULL_ACK_TIMEOUT_MS,
  type PullOptions,
  type ListenerConfig,
  type MmmqConsumerOptions,
  type RegistrationOptions,
  type StartFrom,
  type WorkersOptions,
} from './config/mmmq-consumer.options';
export { DEFAULT_LISTENER_CONCURRENCY } from './listener/mmmq-listener.options';
export { DEFAULT_DELIVERY_MODE, type DeliveryMode } from './listener/delivery-mode';
export {
  MmmqConsumerHealthIndicator,
  DEFAULT_CONSUMER_HEALTH_KEY,
  DEFAULT_MAX_HANDLER_MS,
  DEFAULT_MAX_QUEUE_FULL_MS,
  type ConsumerHealthOptions,
  type MmmqConsumerHealth,
} from './health/mmmq-consumer.health-indicator';
export { DEFAULT_CONSUMER_HEALTH_PATH, type HealthEndpointOptions } from './health/health-endpoint.options';
export { DEFAULT_CONSUMER_METRICS_PATH, type MetricsEndpointOptions } from './metrics/metrics-endpoint.options';
// Defined in core, shared with the producer's `asyncapi` option.
export { DEFAULT_ASYNCAPI_PATH, DEFAULT_ASYNCAPI_TITLE, DEFAULT_ASYNCAPI_VERSION, type AsyncApiRouteOptions } from '@mmmq/core';
export type { PendingRegistration } from './registration/registration-status';
export type { TransportHealth } from './handling/transport-health';
export {
  MMMQListener,
  type ListenerDecorator,
  type MmmqListenerDecoratorOptions,
  type TypedListenerDecoratorFactory,
} from './listener/mmmq-listener.decorator';
export { Payload } from './listener/payload.decorator';
export { Ctx } from './listener/ctx.decorator';
export { MMMQ_CONTEXT_TYPE, type MmmqContextType } from './handling/listener-context-creator';
export type { MmmqListenerOptions } from './listener/mmmq-listener.options';
export { MessageContext, type NackOptions } from './listener/message-context';
export type { Transaction, TransactionProduceOptions } from './listener/transaction';
export { ACK_MODES, DEFAULT_ACK_MODE, type AckMode } from './listener/ack-mode';
export { ListenerInbox, type InboxKey, type InboxOutcome } from './inbox/listener-inbox';
export {
  BROKER_DEFAULT_ATTEMPT_TIMEOUT_MS,
  BROKER_DEFAULT_MAX_DELIVERIES,
  inboxRetentionWarning,
  knownRedeliveryBounds,
  redeliveryWindowMs,
  type RedeliveryBounds,
} from './inbox/redelivery-window';
export { MAX_NACK_DELAY_MS } from '@mmmq/core';
export { DUPS_OK_ACK_LINGER_MS, DUPS_OK_ACK_BATCH, ACK_SEND_ATTEMPTS } from './pull/ack-batcher';
export { PULL_BACKOFF_INITIAL_MS, PULL_BACKOFF_MAX_MS } from './pull/pull-backoff';
export { SettlementError } from './errors/settlement.error';
export { LeaseLostError } from './errors/lease-lost.error';
export { HANDLER_MAX_PARAMETERS } from './listener/handler-signature';
export { LISTENER_CONSUMER_ID_MAX_LENGTH } from './listener/consumer-id.naming';
export { MAX_REPORTED_VIOLATIONS } from './handling/content-converter';
export { RETRY_AFTER_SECONDS } from '@mmmq/core';
export { PUSH_ORDER_WAIT_MS } from './handling/push-sequencer';
export type { ConsumerClaimCheckOptions } from './config/claim-check.options';
// Defined in core, shared with the producer; re-exported so a consumer-only app can configure a claim check.
export { FileSystemObjectStore, type ObjectStore, type ClaimCheckReference } from '@mmmq/core';
export { NonRetriableError } from './errors/non-retriable.error';
export { InvalidConsumerOptionsError } from './errors/invalid-consumer-options.error';
export { MissingPeerDependencyError } from './errors/missing-peer-dependency.error';
export { InvalidListenerError } from './errors/invalid-listener.error';
export { DispatcherRegistrationError } from './errors/dispatcher-registration.error';
export { BrokerRequestError } from './errors/broker-request.error';
export { DeliveryRefusedError } from './errors/delivery-refused.error';
export { ListenerNotSubscribedError } from './errors/listener-not-subscribed.error';
export { QueueFullError } from './errors/queue-full.error';
export { ConsumerClosingError } from './errors/consumer-closing.error';
export { HandlerAbandonedError } from './errors/handler-abandoned.error';
export { PushOutOfOrderError } from './errors/push-out-of-order.error';
export { InvalidDeliveryError } from './errors/invalid-delivery.error';
export { DeliveryTooLargeError } from './errors/delivery-too-large.error';
export { DeliveryUnauthorizedError } from './errors/delivery-unauthorized.error';
export { PushNotAcceptedError } from './errors/push-not-accepted.error';
export { DEFAULT_SIGNATURE_TOLERANCE_SECONDS } from '@mmmq/core';
// Defined in core, shared with the producer; re-exported so listener code needs no core import.
export type { AnyEvents, EventMap, EventTopic } from '@mmmq/core';
