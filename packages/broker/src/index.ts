export { MmmqBrokerModule } from './mmmq-broker.module';
export { MMMQ_BROKER_OPTIONS } from './mmmq-broker.module-definition';
export {
  Dispatcher,
  type DispatcherHostInput,
  type DispatcherInput,
  type DispatcherRegistration,
  type DispatcherUpdate,
} from './dispatch/dispatcher';
export type { StartFrom } from './dispatch/dispatcher-definition';
export type { DispatcherDefinitionJson } from './format/dispatcher-json';
export { DispatcherNotFoundError, DuplicateConsumerIdError, PushHostNotFoundError } from './dispatch/dispatcher.errors';
export { type BacklogOverflow, BACKLOG_LIMIT_REASON, DEFAULT_BACKLOG_OVERFLOW } from './dispatch/backlog-limit';
export type { SubscriptionView } from './dispatch/subscription-container';
export type { SubscriptionStatsSnapshot } from './dispatch/subscription-stats';
export type { SubscriptionState } from './dispatch/subscription';
export { TopicRegistry, type TopicInfo } from './overview/topic-registry';
export { TopicPolicies } from './topics/topic-policies';
export { type MessagePage, type MessageView } from './topics/topic-browser';
export { TopicNotFoundError } from './topics/topic.errors';
export { DEFAULT_TOPIC_LIMIT_RETRY_AFTER_MS, PublishExceedsTopicLimitError, TopicLimitExceededError } from './retention/topic-limit.errors';
export type { TopicLimitName } from './retention/topic-limit.errors';
export {
  type DeduplicationOptions,
  DEFAULT_DEDUPLICATION_MAX_IDS,
  DEFAULT_DEDUPLICATION_WINDOW_MS,
  DEFAULT_RETENTION_MS,
  type DeliveryMode,
  DELIVERY_MODES,
  type ExpiryOptions,
  type ResolvedTopicPolicy,
  type RetentionOptions,
  type RetentionWhenNeeded,
  type TopicLimitOptions,
  type TopicOverflow,
  type TopicPolicy,
  type TopicPolicyOverride,
  type TopicsOptions,
  type WhenExpired,
} from './topics/topic-policy.options';
export type { DeduplicationStats } from './deduplication/deduplication-window';
export {
  MmmqBrokerEvent,
  type DispatcherHostJoinedEvent,
  type DispatcherHostLeftEvent,
  type DispatcherRegisteredEvent,
  type DispatcherRemovedEvent,
  type DispatcherUpdatedEvent,
  type MessageDeadLetteredEvent,
  type MmmqBrokerEventMap,
  type MmmqBrokerEventName,
  type StallReason,
  type SubscriptionResumedEvent,
  type SubscriptionStalledEvent,
  type TopicCreatedEvent,
} from './events';
export { registerRawBodyParser } from './http/register-raw-body-parser';
export {
  DEFAULT_HEADERS_TIMEOUT_MS,
  DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
  DEFAULT_MAX_BATCH_MESSAGES,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_CONNECTIONS_PER_IP,
  DEFAULT_MAX_JSON_DEPTH,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_ROOT_DIR,
  DEFAULT_FLUSH_BYTES,
  DEFAULT_DISK_CHECK_INTERVAL_MS,
  DEFAULT_DISK_MIN_FREE_BYTES,
  DEFAULT_RETENTION_CHECK_INTERVAL_MS,
  DEFAULT_FLUSH_INTERVAL_MS,
  DEFAULT_SEGMENT_MAX_BYTES,
  DEFAULT_STREAM_HOST,
  DEFAULT_MAX_DISPATCHERS,
  DEFAULT_MAX_SUBSCRIPTIONS,
  DEFAULT_MAX_DELAY_MS,
  DEFAULT_MAX_TOPICS,
  MMMQ_PERSISTENCE_OPTIONS,
  type LimitsOptions,
  type MemoryOptions,
  type HttpOptions,
  type MmmqBrokerOptions,
  type PersistenceOptions,
  type ResolvedPersistenceOptions,
  type DiskGuardOptions,
  type RetentionCheckOptions,
  type FlushOptions,
  type SegmentOptions,
  type StreamOptions,
  type TlsOptions,
} from './mmmq-broker.options';
export { readTlsCredentials, TlsCertificates, type TlsCredentials } from './tls/tls-certificates';
export { TlsCertificateError } from './tls/tls-certificate.error';
export { PublishStreamServer, STREAM_SHUTDOWN_GRACE_MS } from './stream/publish-stream.server';
export { STREAM_MAX_UNANSWERED } from './stream/publish-stream.connection';
export { StreamListenError } from './stream/stream.errors';
export { BrokerLimitReachedError, type BrokerLimitName } from './config/broker-limit.error';
export { MIN_TOKEN_LENGTH, MAX_TOKEN_LENGTH, type AuthOptions, type AuthTokenOptions } from './security/auth.options';
export { BROKER_ROLES, type BrokerRole } from './security/broker-role';
export { AccessDeniedError, AuthenticationRequiredError, CrossOriginRequestError, HostNotAllowedError } from './security/security.errors';
export { ANY_HOST } from './security/host-policy';
export { InvalidBrokerOptionsError } from './config/invalid-broker-options.error';
export {
  IncompleteRequestBodyError,
  MissingRequestBodyError,
  PayloadTooLargeError,
  RequestBodyConsumedError,
  StreamFencedError,
  SubscriptionBacklogFullError,
  UnsupportedContentEncodingError,
  UnsupportedContentTypeError,
} from './publish/publish.errors';
export { MalformedEnvelopeError } from './format/format.errors';
export { RETRY_AFTER_SECONDS } from '@mmmq/core';
export {
  DEFAULT_PUSH_ALLOWED_NETWORKS,
  LOOPBACK_NETWORKS,
  METADATA_HOST_NAMES,
  PRIVATE_NETWORKS,
  PushTargetRefusedError,
} from './dispatch/push-target-policy';
export { METADATA_ADDRESSES } from './dispatch/address-class';
export { BrokerBus } from './events/broker-bus';
export { DispatcherChangedEvent } from './dispatch/dispatcher-changed.event';
export { SubscriptionAttachedEvent } from './dispatch/subscription-attached.event';
export { DEFAULT_PUSH_TARGET_LOOKUP_TIMEOUT_MS } from './dispatch/push-target-guard';
export type { DeliveryOptions } from './dispatch/delivery.options';
export {
  DiskSpaceLowError,
  StorageError,
  StorageUnavailableError,
  TopicNameConflictError,
  CheckpointDirectory,
  SegmentFileChain,
  TopicQueue,
  TopicQueueContainer,
  TopicOpenedEvent,
  RecordsCommittedEvent,
  verifyDataDirectory,
  type DataDirectoryReport,
  type VerifyNote,
  type VerifyOptions,
  type VerifyProblem,
  type VerifyProgress,
} from './storage';
export { DEFAULT_HEALTH_PATH, type HealthOptions } from './health/health.options';
export { BrokerReadinessIndicator } from './health/broker-readiness.indicator';
export { DEFAULT_METRICS_PATH, type MetricsOptions } from './metrics/metrics.options';
export { BrokerMetrics } from './metrics/broker-metrics';
export {
  ReplyRelay,
  REPLY_FETCH_MAX_WAIT_MS,
  REPLY_INBOX_IDLE_MS,
  REPLY_INBOX_MAX_REPLIES,
  REPLY_INBOXES_MAX,
  REPLY_RELAY_MAX_BYTES,
} from './replies/reply-relay';
