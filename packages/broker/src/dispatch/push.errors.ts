import { MmmqError } from '@mmmq/core';

/** A push got no usable acknowledgement: connection error, timeout, HTTP status ≥ 400 or an unreadable reply. */
export class DeliveryFailedError extends MmmqError {
  /**
   * False when no handler can have seen it, so it does not count as a delivery: the request never left whole (a
   * refused connection, a refused target, DNS), or the consumer answered 503 (it did not take it: starting, shutting
   * down, full) or 413 (it did not take it: too large).
   */
  reachedConsumer = true;
  /** The consumer's HTTP status, when it answered with one. */
  status?: number;
}

/**
 * The consumer answered 413: the push is larger than it takes. No handler saw it, so it is not a delivery; the
 * push member sends its messages again in smaller pushes, and dead-letters a single message refused (`TOO_LARGE`).
 */
export class PushTooLargeError extends DeliveryFailedError {
  override reachedConsumer = false;
}

/**
 * The consumer answered 401: it refused the push's signature, or its lack of one. Sending again will not help
 * until the dispatcher's `signingSecret` or the consumer's secrets change.
 */
export class PushUnauthorizedError extends DeliveryFailedError {}
