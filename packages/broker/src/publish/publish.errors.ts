import { MmmqError, MmmqValidationError } from '@mmmq/core';

/** The request body is larger than `http.maxBodyBytes`; answered with 413. */
export class PayloadTooLargeError extends MmmqError {}

/**
 * A body parser of the host application read the request before the broker could, without keeping the raw
 * bytes. The broker stores payloads byte for byte, so it cannot work from a parsed body.
 */
export class RequestBodyConsumedError extends MmmqError {}

/** The body is compressed; the broker stores bytes as sent and does not inflate them. Answered with 415. */
export class UnsupportedContentEncodingError extends MmmqError {}

/** The connection failed or closed before the whole body arrived. */
export class IncompleteRequestBodyError extends MmmqValidationError {}

/** A request that needs a JSON body came without one (no `Content-Length`, or `Content-Length: 0`); answered 400. */
export class MissingRequestBodyError extends MmmqValidationError {}

/**
 * The body is not declared as JSON (`Content-Type: application/json`, or `application/…+json`, in UTF-8). Browsers
 * send `text/plain` and form bodies to other origins without asking, so only JSON is accepted; answered 415.
 */
export class UnsupportedContentTypeError extends MmmqError {}

/** More header fields than the broker reads (`MAX_REQUEST_HEADER_FIELDS`); answered 431. */
export class TooManyHeaderFieldsError extends MmmqError {}

/** A stream request refused because an earlier one on the same connection failed; it was not stored (503). */
export class StreamFencedError extends MmmqError {
  constructor(cause: string) {
    super(`Not stored: an earlier publish on this connection failed (${cause}); resend it and everything after it`);
  }
}

/**
 * A publish refused (429 with `Retry-After`) because a subscription of its topic with `backlogOverflow: 'reject'`
 * has `maxBacklog` messages not settled. Nothing of the refused publish is stored; a retry succeeds once the
 * consumer has caught up.
 */
export class SubscriptionBacklogFullError extends MmmqError {
  constructor(
    readonly topic: string,
    readonly consumerId: string,
    readonly backlog: number,
    readonly maxBacklog: number,
    readonly retryAfterMs: number,
  ) {
    super(
      `Topic ${topic} is not taking messages: consumer ${consumerId} has ${backlog} messages not settled, its ` +
        `dispatcher's maxBacklog is ${maxBacklog} (backlogOverflow "reject"); publishing resumes as it catches up`,
    );
  }
}
