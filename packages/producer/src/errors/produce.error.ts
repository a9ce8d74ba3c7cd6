import { MmmqError } from '@mmmq/core';

/** What was being published when publishing failed. */
export interface ProduceFailure {
  /** The message's topic; for a batch or transaction, the first message's (`''` when it had no message yet). */
  topic: string;
  /** Every topic of the message, batch or transaction, each once, in order of first appearance. */
  topics: readonly string[];
  /** Ids of the messages, in order, including those the producer assigned; publish again with these. */
  ids: readonly string[];
  /** Requests sent to the broker, the first one included; 0 when nothing was sent. */
  attempts: number;
}

/** What is being published, before any attempt. */
export type Publication = Omit<ProduceFailure, 'attempts'>;

/** The topics and ids of `messages`, in order. */
export function publicationOf(messages: readonly { topic: string; id: string }[]): Publication {
  const topics = [...new Set(messages.map((message) => message.topic))];
  return { topic: topics[0] ?? '', topics, ids: messages.map((message) => message.id) };
}

/**
 * Publishing did not get an acknowledgement, so the message (or batch) may not be stored. Never swallowed:
 * once a message passed validation, every failure of `Producer.produce()`, `produceBatch()` and of a
 * `transaction()`'s commit is a `ProduceError`, with the last attempt's failure as its `cause`. (Invalid input
 * is refused before anything is sent, with the `MmmqValidationError` that names the problem.) A batch or a
 * transaction is one commit, so it is stored whole or not at all, never in part.
 */
export class ProduceError extends MmmqError implements ProduceFailure {
  readonly topic: string;
  readonly topics: readonly string[];
  readonly ids: readonly string[];
  readonly attempts: number;

  constructor(message: string, failure: ProduceFailure, options?: { cause?: unknown }) {
    super(message, options);
    this.topic = failure.topic;
    this.topics = failure.topics;
    this.ids = failure.ids;
    this.attempts = failure.attempts;
  }

  /** Every attempt failed in a way a retry could have fixed, and none is left. */
  static exhausted(failure: ProduceFailure, cause: unknown): ProduceError {
    return new ProduceError(
      `${publishing(failure)} failed after ${attempts(failure.attempts)}: ${reason(cause)}. Gave up; ` + `${publishAgain(failure)}`,
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

  /** A content over the claim-check threshold could not be written to the object store: nothing was sent. */
  static notStored(failure: ProduceFailure, cause: unknown): ProduceError {
    return new ProduceError(
      `${publishing(failure)} failed before it was sent: a content over the claim-check threshold could not be ` +
        `written to the object store: ${reason(cause)}. Nothing was sent.`,
      failure,
      { cause },
    );
  }

  /** Something other than the broker or the network failed, which retrying would not fix. */
  static unexpected(failure: ProduceFailure, cause: unknown): ProduceError {
    return new ProduceError(
      `${publishing(failure)} failed on attempt ${failure.attempts} with an unexpected error: ${reason(cause)}. ` + 'It was not retried.',
      failure,
      { cause },
    );
  }
}

/** "Publishing to order.created", "Publishing a batch of 3 messages to orders" or "… to orders and invoices". */
export function publishing(failure: ProduceFailure): string {
  return failure.ids.length === 1
    ? `Publishing to ${failure.topic}`
    : `Publishing a batch of ${failure.ids.length} messages to ${listTopics(failure.topics)}`;
}

/** "orders", "orders and invoices", "orders, invoices and refunds". */
export function listTopics(topics: readonly string[]): string {
  if (topics.length <= 1) return topics[0] ?? 'no topic';
  return `${topics.slice(0, -1).join(', ')} and ${topics[topics.length - 1]}`;
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
