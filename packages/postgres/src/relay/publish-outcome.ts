import { MmmqValidationError } from '@mmmq/core';
import { MessageRejectedError, ProducerClosedError } from '@mmmq/producer';

/**
 * Refusals about the rows themselves (docs/http-api.md § Errors): invalid (400), a topic name clashing in letter
 * case with an existing topic (409), too large (413), unsupported content type or encoding (415). Any other
 * refusal (401, 403, 404, 421 …) is about where or how the relay publishes — a rotated token, a proxy answering
 * 404 during a deploy — and ends once that is fixed, so it must not fail the backlog for good.
 */
const ROW_REFUSALS: ReadonlySet<number> = new Set([400, 409, 413, 415]);

/**
 * What a failed publish means for the rows:
 * - `rejected`: the broker refused the rows themselves ({@link ROW_REFUSALS}) or the producer's validation did;
 *   the same rows would be refused again, so they become FAILED with the reason (a batch is first retried row by
 *   row, so that only the bad row fails);
 * - `unsent`: nothing left the producer (it was closed); the lease is released;
 * - `ambiguous`: anything else (a timeout, a connection lost after sending, 5xx after the producer's retries, a
 *   refusal such as 401, 403 or 404 that a fix of the set-up ends, an error nobody expected): the broker may hold
 *   the messages, or will take them once the set-up is fixed, so they are retried later with the same ids.
 *   Marking them FAILED could lose a message, and new ids would make a duplicate undetectable.
 */
export type PublishFailure = 'rejected' | 'unsent' | 'ambiguous';

export function classifyPublishFailure(error: unknown): PublishFailure {
  if (error instanceof MmmqValidationError) return 'rejected';
  if (error instanceof MessageRejectedError) return ROW_REFUSALS.has(error.status) ? 'rejected' : 'ambiguous';
  if (error instanceof ProducerClosedError) return 'unsent';
  return 'ambiguous';
}

/** The error's message, for `failure_reason`. */
export function failureReason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
