export { MmmqError } from './errors/mmmq-error';
export { MmmqValidationError } from './errors/mmmq-validation-error';
export { InvalidTopicError } from './errors/invalid-topic-error';
export { InvalidTopicPatternError } from './errors/invalid-topic-pattern-error';
export { InvalidSelectorError } from './errors/invalid-selector-error';
export type { Selector } from './selector/selector';
export { parseSelector, MAX_SELECTOR_LENGTH, MAX_SELECTOR_DEPTH } from './selector/parse-selector';
export {
  type BacklogLimit,
  type BacklogOverflow,
  BACKLOG_OVERFLOWS,
  DEFAULT_BACKLOG_OVERFLOW,
  MAX_MAX_BACKLOG,
  parseBacklogLimit,
} from './backlog-limit';
export { MAX_MEMBERS_LIMIT, type MemberLimits, parseMemberLimits } from './member-limits';
export { InvalidHostError } from './errors/invalid-host-error';
export { InvalidConsumerIdError } from './errors/invalid-consumer-id-error';
export { InvalidMessageError } from './errors/invalid-message-error';
export { ScheduledMessagesUnsupportedError, refuseScheduled } from './errors/scheduled-messages-unsupported-error';
export { Topic, TOPIC_NAME_MAX_LENGTH, RESERVED_TOPIC_PREFIX, TOPIC_SEGMENT_SEPARATOR } from './topic';
export { TopicPattern, MATCH_ALL_PATTERN, TOPIC_PATTERN_MAX_LENGTH, TOPIC_PATTERN_MAX_WILDCARDS } from './topic-pattern';
export {
  Host,
  HostProtocol,
  type HostDefinition,
  HOST_PORT_MIN,
  HOST_PORT_MAX,
  HOST_ADDRESS_MAX_LENGTH,
  HOST_LABEL_MAX_LENGTH,
} from './host';
export { assertConsumerId, CONSUMER_ID_PATTERN, CONSUMER_ID_MAX_LENGTH } from './consumer-id';
export { isBearerTokenText, bearerAuthorization } from './bearer-token';
export {
  Acknowledgement,
  type BrokerAcknowledgement,
  type ConsumerAcknowledgement,
  isAcknowledgement,
  isBrokerAcknowledgement,
  isConsumerAcknowledgement,
} from './acknowledgement';
export {
  type HeaderValue,
  type MessageHeaders,
  type Message,
  assertMessageId,
  assertHeaders,
  MESSAGE_ID_MAX_LENGTH,
  HEADERS_MAX_COUNT,
  HEADER_NAME_MAX_LENGTH,
  HEADER_VALUE_MAX_LENGTH,
} from './message';
export { type DeliveryMode, DELIVERY_MODES, assertDeliveryMode } from './delivery-mode';
export { type FsyncMode, FSYNC_MODES, stricterFsync } from './fsync-mode';
export {
  type MessageProperties,
  assertMessageProperties,
  assertPriority,
  assertSchedule,
  MIN_PRIORITY,
  MAX_PRIORITY,
  DEFAULT_PRIORITY,
} from './message-properties';
export {
  MESSAGES_PATH,
  BATCH_MESSAGES_PATH,
  SHARED_MESSAGES_PATH,
  SHARED_PUSH_HEADER,
  SETTLEMENT_REPLIES_HEADER,
  DISPATCHERS_PATH,
  CONSUMERS_PATH,
  TRANSACTIONS_PATH,
  SCHEDULED_CANCEL_PATH,
  CONSUMER_ID_HEADER,
  PUSH_SESSION_HEADER,
  PUSH_SEQUENCE_HEADER,
  type PublishRequest,
  type PublishBatchRequest,
  type PublishedMessage,
  type StoredMessage,
  type AcceptedMessage,
  type PublishResponse,
  type PublishBatchResponse,
  type TransactionRequest,
  type TransactionResponse,
  type DeliveryRequest,
} from './wire';
export {
  WEBHOOK_ID_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  SIGNING_SECRET_PREFIX,
  SIGNING_SECRET_MIN_BYTES,
  SIGNING_SECRET_MAX_BYTES,
  DEFAULT_SIGNING_SECRET_BYTES,
  DEFAULT_SIGNATURE_TOLERANCE_SECONDS,
  InvalidSigningSecretError,
  WebhookVerificationError,
  SigningSecret,
  verifyWebhook,
  type WebhookHeaders,
  type VerifyWebhookOptions,
} from './webhook-signature';
export {
  STREAM_PREAMBLE,
  STREAM_URL_PROTOCOL,
  SECURE_STREAM_URL_PROTOCOL,
  StreamRequestKind,
  type StreamRequest,
  type StreamReply,
  StreamFrameReader,
  StreamFrameTooLargeError,
  encodeStreamRequest,
  encodeStreamReply,
  decodeStreamRequest,
  decodeStreamReply,
} from './stream/stream-frame';
export { explainInvalidTlsClientOptions, type TlsClientOptions } from './tls-client-options';
export {
  DEFAULT_ASYNCAPI_PATH,
  DEFAULT_ASYNCAPI_TITLE,
  DEFAULT_ASYNCAPI_VERSION,
  type AsyncApiRouteOptions,
} from './asyncapi/asyncapi-route.options';
export * from './backoff';
export { anySignal, type AnySignal } from './any-signal';
export {
  MAX_PUSH_BATCH_SIZE,
  MAX_PUSH_IN_FLIGHT,
  DEFAULT_ACK_TIMEOUT_MS,
  MIN_ACK_TIMEOUT_MS,
  MAX_ACK_TIMEOUT_MS,
  MAX_FETCH_MESSAGES,
  MAX_FETCH_WAIT_MS,
  MAX_NACK_DELAY_MS,
  RETRY_AFTER_SECONDS,
} from './wire-limits';
export { MAX_TIMER_MS, optionChecks, type OptionChecks, type OptionErrorClass } from './option-checks';
export { describeValue, DESCRIBED_VALUE_MAX_LENGTH } from './errors/describe-value';
export type { AnyEvents, EventClasses, EventMap, EventMapOf, EventMessage, EventTopic } from './event-map';
export { HttpShutdownGate, SHUTDOWN_BODY_GRACE_MS } from './http/http-shutdown-gate';
export { RequestTap, type RequestTaker, type PushClaims } from './http/request-tap';
export { PushRouteConflictError } from './errors/push-route-conflict-error';
export { ExitAfterSignalShutdown, STOP_SIGNALS } from './lifecycle/exit-after-signal-shutdown';
export { writeJson } from './http/write-json';
export { readBoundedReply } from './http/read-bounded-reply';
export {
  acceptsSettlementStream,
  BATCH_REPLY_ACCEPT,
  SETTLEMENT_STREAM_TYPE,
  SettlementStreamError,
  SettlementStreamParser,
  settlementLine,
  checkedReply,
} from './http/settlement-stream';
export {
  type SharedSettlementHandlers,
  SharedSettlementParser,
  sharedRefusalLine,
  sharedSettlementLine,
} from './http/shared-settlement-stream';
export { LineBuffer } from './http/line-buffer';
export { OUTBOX_HEADERS, type OutboxHeaderName } from './outbox-headers';
export { TRACE_HEADERS, type TraceHeaderName } from './tracing/trace-headers';
export * from './claim-check';
export { DeadLetterHeaders } from './dead-letter-headers';
export * from './transport';
export { isTimePosition, parseIsoTime, parseSeekPosition, type SeekPosition, type TimePosition } from './seek-position';
export { isStartFrom, parseStartFrom, sameStartFrom, START_FROM_CHOICES, type StartFrom } from './start-from';
export * from './reply';
