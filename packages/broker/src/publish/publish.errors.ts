import { MmmqError, MmmqValidationError } from '@mmmq/core';

/** The request body is larger than `http.maxBodyBytes`; answered with 413. */
export class PayloadTooLargeError extends MmmqError {}

/**
 * A body parser of the host application read the request before the broker could, without keeping the raw
 * bytes. The broker stores payloads byte for byte, so it cannot work from a parsed body.
 */
export class RequestBodyConsumedError extends MmmqError {}

/** A stored payload is not a message envelope (neither this broker's format nor the original Java one). */
export class MalformedEnvelopeError extends MmmqError {}

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
