import { MmmqValidationError } from '@mmmq/core';
import { HttpException, HttpStatus } from '@nestjs/common';
import {
  PayloadTooLargeError,
  RequestBodyConsumedError,
  StreamFencedError,
  SubscriptionBacklogFullError,
  TooManyHeaderFieldsError,
  UnsupportedContentEncodingError,
  UnsupportedContentTypeError,
} from '../publish/publish.errors';
import { AccessDeniedError, AuthenticationRequiredError, HostNotAllowedError } from '../security/security.errors';
import {
  DispatcherNotFoundError,
  DuplicateConsumerIdError,
  MaxMembersReachedError,
  PushHostNotFoundError,
  SubscriptionNotFoundError,
} from '../dispatch/dispatcher.errors';
import { SubscriptionLockedError } from '../seek/seek.errors';
import { RETRY_AFTER_SECONDS } from '@mmmq/core';
import { StorageError, StorageUnavailableError, TopicNameConflictError } from '../storage';
import { TooManyFetchesError } from '../pull/pull.errors';
import { StaleLeaseError } from '../dispatch/transaction.errors';
import { TopicNotFoundError } from '../topics/topic.errors';
import { TopicLimitExceededError } from '../retention/topic-limit.errors';
import { BrokerLimitReachedError } from '../config/broker-limit.error';
import { NotCancellableError, ScheduledMessageNotFoundError } from '../publish/scheduled-cancellation';

/** What a failed publish is answered with. */
export interface NackResponse {
  status: number;
  /** Safe to show the producer. */
  message: string;
  /** Set for 429 and 503, which a producer should retry. */
  retryAfterSeconds?: number;
  /** True for bugs and misconfiguration, which are logged with their stack. */
  unexpected: boolean;
  /** Headers the answer needs besides `Retry-After`: `WWW-Authenticate` with a 401. */
  headers?: Record<string, string>;
}

/** RFC 9110: a request sent to a server that does not serve its `Host`. */
const MISDIRECTED_REQUEST = 421;
/** RFC 6585. */
const REQUEST_HEADER_FIELDS_TOO_LARGE = 431;

const INTERNAL_ERROR_MESSAGE = 'Internal broker error; the message was not stored';

/** Maps an error to its status; only errors raised on purpose have their message shown. */
export function toNackResponse(error: unknown): NackResponse {
  const expected = (status: number, retryAfterSeconds?: number): NackResponse => ({
    status,
    message: (error as Error).message,
    retryAfterSeconds,
    unexpected: false,
  });
  if (error instanceof MmmqValidationError) return expected(HttpStatus.BAD_REQUEST);
  if (error instanceof AuthenticationRequiredError) {
    return { ...expected(HttpStatus.UNAUTHORIZED), headers: { 'WWW-Authenticate': error.challenge } };
  }
  if (error instanceof AccessDeniedError) return expected(HttpStatus.FORBIDDEN);
  if (error instanceof HostNotAllowedError) return expected(MISDIRECTED_REQUEST);
  if (
    error instanceof TopicNameConflictError ||
    error instanceof DuplicateConsumerIdError ||
    error instanceof StaleLeaseError ||
    error instanceof SubscriptionLockedError ||
    error instanceof MaxMembersReachedError ||
    error instanceof NotCancellableError
  ) {
    return expected(HttpStatus.CONFLICT);
  }
  if (
    error instanceof DispatcherNotFoundError ||
    error instanceof PushHostNotFoundError ||
    error instanceof TopicNotFoundError ||
    error instanceof SubscriptionNotFoundError ||
    error instanceof ScheduledMessageNotFoundError
  ) {
    return expected(HttpStatus.NOT_FOUND);
  }
  if (error instanceof PayloadTooLargeError) return expected(HttpStatus.PAYLOAD_TOO_LARGE);
  if (error instanceof TooManyFetchesError) return expected(HttpStatus.TOO_MANY_REQUESTS, RETRY_AFTER_SECONDS);
  if (error instanceof SubscriptionBacklogFullError) return expected(HttpStatus.TOO_MANY_REQUESTS, seconds(error.retryAfterMs));
  if (error instanceof TopicLimitExceededError) {
    return expected(HttpStatus.TOO_MANY_REQUESTS, Math.max(1, Math.ceil(error.retryAfterMs / 1000)));
  }
  if (error instanceof BrokerLimitReachedError) return expected(HttpStatus.TOO_MANY_REQUESTS, seconds(error.retryAfterMs));
  if (error instanceof TooManyHeaderFieldsError) return expected(REQUEST_HEADER_FIELDS_TOO_LARGE);
  if (error instanceof UnsupportedContentEncodingError || error instanceof UnsupportedContentTypeError) {
    return expected(HttpStatus.UNSUPPORTED_MEDIA_TYPE);
  }
  if (error instanceof StorageUnavailableError) {
    return expected(HttpStatus.SERVICE_UNAVAILABLE, seconds(error.retryAfterMs));
  }
  if (error instanceof StorageError) return expected(HttpStatus.SERVICE_UNAVAILABLE, RETRY_AFTER_SECONDS);
  // Nothing is wrong with the request itself: it can be resent as soon as the one that failed before it.
  if (error instanceof StreamFencedError) return expected(HttpStatus.SERVICE_UNAVAILABLE);
  // A deployment mistake: the operator needs the explanation, and it reveals nothing about the data.
  if (error instanceof RequestBodyConsumedError) {
    return { ...expected(HttpStatus.INTERNAL_SERVER_ERROR), unexpected: true };
  }
  // Raised by guards and interceptors of the host application (a rate limiter's 429, for instance).
  if (error instanceof HttpException) return fromHttpException(error);
  return { status: HttpStatus.INTERNAL_SERVER_ERROR, message: INTERNAL_ERROR_MESSAGE, unexpected: true };
}

/** `Retry-After` is in whole seconds; never 0, which would invite an immediate retry. */
function seconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

function fromHttpException(error: HttpException): NackResponse {
  const status = error.getStatus();
  const retryable = status === HttpStatus.TOO_MANY_REQUESTS || status === HttpStatus.SERVICE_UNAVAILABLE;
  return {
    status,
    message: error.message,
    retryAfterSeconds: retryable ? RETRY_AFTER_SECONDS : undefined,
    unexpected: status >= HttpStatus.INTERNAL_SERVER_ERROR,
  };
}
