import { MmmqError } from '@mmmq/core';

/**
 * `outbox.add()` was given a message id the outbox already holds. The statement failed, so the caller's
 * transaction is aborted, as after any failed statement: a second message under one id would be dropped by every
 * de-duplication downstream.
 */
export class DuplicateOutboxMessageError extends MmmqError {
  constructor(
    readonly messageId: string,
    options?: { cause?: unknown },
  ) {
    super(`The outbox already holds a message with id ${JSON.stringify(messageId)}; give each message its own id`, options);
  }
}
