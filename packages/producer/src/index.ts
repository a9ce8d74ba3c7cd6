export { MmmqProducerModule } from './mmmq-producer.module';
export { MMMQ_PRODUCER_OPTIONS } from './mmmq-producer.module-definition';
export {
  DEFAULT_MAX_RETRY_COUNT,
  DEFAULT_MAX_RETRY_DELAY_MS,
  DEFAULT_RETRY_DELAY_MS,
  DEFAULT_TIMEOUT_MS,
  type MmmqProducerOptions,
} from './mmmq-producer.options';
export { RETRY_BACKOFF_MULTIPLIER, RETRY_JITTER } from './retry/retry-policy';
export { DEFAULT_BATCH_MAX_BYTES, DEFAULT_BATCH_MAX_MESSAGES, DEFAULT_STREAM_MAX_IN_FLIGHT } from './publish-batcher';
export { HTTP_MAX_SOCKETS } from './gateway/http-broker-publisher';
export { Producer } from './producer';
export type { ProducerClaimCheckOptions } from './claim-check/claim-check.options';
// Defined in core, shared with the consumer; re-exported so a producer-only app can configure a claim check.
export {
  FileSystemObjectStore,
  DEFAULT_CLAIM_CHECK_THRESHOLD_BYTES,
  DEFAULT_CLAIM_CHECK_TTL_MS,
  type ObjectStore,
  type ObjectMetadata,
  type ClaimCheckReference,
} from '@mmmq/core';
export type { ProducerTransaction, TransactionResult } from './producer-transaction';
export type { ProduceOptions } from './produce-options';
export type { DeliveryMode } from '@mmmq/core';
// Defined in core, shared with the consumer's listeners; re-exported so a producer-only app needs no core import.
export type { AnyEvents, EventClasses, EventMap, EventMapOf, EventMessage, EventTopic } from '@mmmq/core';
// Defined in core, shared with the consumer's `asyncapi` option.
export { DEFAULT_ASYNCAPI_PATH, DEFAULT_ASYNCAPI_TITLE, DEFAULT_ASYNCAPI_VERSION, type AsyncApiRouteOptions } from '@mmmq/core';
export { ProduceError, type ProduceFailure } from './errors/produce.error';
export { MessageRejectedError } from './errors/message-rejected.error';
export { ProducerClosedError } from './errors/producer-closed.error';
export { BrokerResponseError, type BrokerResponse } from './errors/broker-response.error';
export { BrokerUnreachableError } from './errors/broker-unreachable.error';
export { TransactionEndedError } from './errors/transaction-ended.error';
export { InvalidProducerOptionsError } from './errors/invalid-producer-options.error';
export {
  RequestError,
  RequestTimeoutError,
  ReplyError,
  RequestCancelledError,
  RequestReplyUnavailableError,
} from './errors/request.errors';
export { DEFAULT_REQUEST_TIMEOUT_MS, type RequestOptions } from './request/request-options';
export { REPLY_COLLECT_WAIT_MS } from './request/reply-collector';
export { REPLY_COLLECT_LINGER_MS } from './request/reply-inbox';
export type { ReplyStats } from './request/pending-requests';
