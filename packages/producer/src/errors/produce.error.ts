import { MmmqError } from '@mmmq/core';

/** What was being published when publishing failed. */
export interface ProduceFailure {
  topic: string;
  /** Ids of the messages, in order, including those the producer assigned; publish again with these. */
  ids: readonly string[];
  /** Requests sent to the broker, the first one included; 0 when nothing was sent. */
  attempts: number;
}

/**
 * Publishing did not get an acknowledgement, so the message (or batch) may not be stored. Never swallowed:
 * once a message passed validation, every failure of `Producer.produce()` and `produceBatch()` is a
 * `ProduceError`, with the last attempt's failure as its `cause`. (Invalid input is refused before anything is
 * sent, with the `MmmqValidationError` that names the problem.)
 */
export class ProduceError extends MmmqError implements ProduceFailure {
  readonly topic: string;
  readonly ids: readonly string[];
  readonly attempts: number;

  constructor(message: string, failure: ProduceFailure, options?: { cause?: unknown }) {
    super(message, options);
    this.topic = failure.topic;
    this.ids = failure.ids;
    this.attempts = failure.attempts;
  }

  /** Every attempt failed in a way a retry could have fixed, and none is left. */
  static exhausted(failure: ProduceFailure, cause: unknown): ProduceError {
    return new ProduceError(
      `${publishing(failure)} failed after ${attempts(failure.attempts)}: ${reason(cause)}. Gave up; ` +
        `${publishAgain(failure)}`,
      failure,
      { cause },
    );
  }

  /** The producer closed while waiting to retry. */
  static interrupted(failure: ProduceFailure, cause: unknown): ProduceError {
    return new ProduceError(
      `${publishing(failure)} failed after ${attempts(failure.attempts)}: ${reason(cause)}. The producer ` +
        `closed before the next attempt, so it was not retried; ${publishAgain(failure)}`,
      failure,
      { cause },
    );
  }

  /** Something other than the broker or the network failed, which retrying would not fix. */
  static unexpected(failure: ProduceFailure, cause: unknown): ProduceError {
    return new ProduceError(
      `${publishing(failure)} failed on attempt ${failure.attempts} with an unexpected error: ${reason(cause)}. ` +
        'It was not retried.',
      failure,
      { cause },
    );
  }
}

/** "Publishing to order.created" or "Publishing a batch of 3 messages to orders". */
export function publishing(failure: ProduceFailure): string {
  return failure.ids.length === 1
    ? `Publishing to ${failure.topic}`
    : `Publishing a batch of ${failure.ids.length} messages to ${failure.topic}`;
}

function attempts(count: number): string {
  return count === 1 ? '1 attempt' : `${count} attempts`;
}

function publishAgain(failure: ProduceFailure): string {
  // Whether the broker stored it is unknown after a timeout, so the advice must keep duplicates detectable.
  return failure.ids.length === 1
    ? `it may not be stored: publish it again with the same id ${JSON.stringify(failure.ids[0])} so that ` +
        'consumers can drop a duplicate'
    : 'it may not be stored: publish it again with the same ids (error.ids) so that consumers can drop duplicates';
}

function reason(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}
