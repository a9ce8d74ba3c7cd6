import { MmmqValidationError } from '@mmmq/core';
import { MessageRejectedError, ProducerClosedError } from '@mmmq/producer';

/**
 * What a failed publish means for the rows:
 * - `rejected`: the broker (or the producer's validation) refused it for good; the same request would be refused
 *   again, so the rows become FAILED with the reason;
 * - `unsent`: nothing left the producer (it was closed); the lease is released;
 * - `ambiguous`: anything else (a timeout, a connection lost after sending, 5xx after the producer's retries, an
 *   error nobody expected): the broker may hold the messages, so they are retried later with the same ids.
 *   Marking them FAILED could lose a message, and new ids would make a duplicate undetectable.
 */
export type PublishFailure = 'rejected' | 'unsent' | 'ambiguous';

export function classifyPublishFailure(error: unknown): PublishFailure {
  if (error instanceof MessageRejectedError || error instanceof MmmqValidationError) return 'rejected';
  if (error instanceof ProducerClosedError) return 'unsent';
  return 'ambiguous';
}

/** The error's message, for `failure_reason`. */
export function failureReason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
